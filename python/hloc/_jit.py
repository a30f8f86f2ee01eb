"""hloc.jit: jax.jit's interface, hloc's compiler.

A call looks up the arguments' signature (the pytree structure, each
leaf's shape, dtype and weak type, the static arguments' values, the x64
flag) in the function's dispatch table. A miss lowers the function through
JAX (jax.jit(f).lower(...) -> HloModuleProto) and gets the compiled program
from the compilation cache (_program.get_program), which compiles only a
module it has not seen. A hit only converts the arguments and runs, so the
per-call cost is a dictionary lookup and the run.

platform="cuda": JAX GPU arrays go in through DLPack and are read in place;
NumPy arrays are copied in; results come back as JAX arrays on the GPU,
imported from hloc's DLPack results without a copy (hloc/_cuda.py). A GPU
array given to a cpu or interpreter function is a ValueError naming the
argument, not a silent copy through the host.
"""

import functools
import inspect

import jax

from hloc import _cuda, _program
from hloc._errors import HlocError

_tree_flatten = jax.tree_util.tree_flatten


class Lowered:
    """A function lowered by JAX and optimised by hloc's pipeline for a
    platform, like hlo-opt --platform=P prints it."""

    def __init__(self, optimized, proto, out_tree, name, platform,
                 verify_each, fallback, drop_debug_callbacks=False,
                 jitted=None, key=None):
        self._jitted = jitted
        self._key = key
        self._optimized = optimized
        self._proto = proto
        self._out_tree = out_tree
        self._name = name
        self._platform = platform
        self._verify_each = verify_each
        self._fallback = fallback
        self._drop_debug_callbacks = drop_debug_callbacks

    @property
    def platform(self):
        return self._platform

    @property
    def out_tree(self):
        return self._out_tree

    def as_text(self):
        """The optimised HLO module (what hlo-opt --stage=hlo prints)."""
        return self._optimized.as_text()

    def as_proto(self):
        """The HloModuleProto JAX produced, before hloc's pipeline."""
        return self._proto

    def fusion_report(self):
        """Why every producer/consumer pair fused or not (hlo-opt
        --fusion-report)."""
        return self._optimized.fusion_report()

    def stage(self, name):
        """One stage of compilation as hlo-opt --stage prints it (see
        hloc.stages()): text, or bytes for "object"."""
        return self._optimized.stage(name)

    def executable(self):
        """The saved executable's bytes (hlo-opt --stage=executable -o
        FILE): hloc.load() and Jitted.use_executable() run it, also on a
        machine where hloc has no compiler."""
        return self._optimized.executable_bytes()

    def compile(self):
        """The compiled module, through the cache: a Compiled, called with
        the arguments the function was lowered for (as jax.jit(f).lower(x)
        .compile() is), or run(*arrays) on the flat arrays, as
        hloc.Executable."""
        program = _program.get_program(self._proto, self._name,
                                       self._platform, self._verify_each,
                                       self._fallback,
                                       self._drop_debug_callbacks)
        return Compiled(program, self._name, self._jitted, self._key,
                        self._out_tree)


class Compiled(_program.Executable):
    """A function's module compiled for one signature (Lowered.compile()):
    calling it with arguments of that signature (static ones equal, as
    lowered) returns the function's result pytree."""

    def __init__(self, program, name, jitted, key, out_tree):
        super().__init__(program, name)
        self._jitted = jitted
        self._key = key
        self._entry = _Entry(program, out_tree)

    def __call__(self, *args, **kwargs):
        if self._jitted is None:
            raise TypeError(f"{self._name}: this module was compiled without "
                            "its function's signature; use run(*arrays)")
        key, leaves = self._jitted._signature(args, kwargs)
        if key != self._key:
            raise TypeError(
                f"{self._name}: compiled for other arguments than these (a "
                "Compiled runs only the shapes, dtypes, pytree and static "
                "values it was lowered for; call the hloc.jit function to "
                "compile for new ones)")
        return _run_entry(self._entry, leaves, self._name)


class _Entry:
    """What a call with one signature needs: the program and the
    conversions of its arguments and results."""

    __slots__ = ("program", "in_dtypes", "result_views", "out_tree", "cuda")

    def __init__(self, program, out_tree):
        self.program = program
        self.cuda = program.platform == "cuda"
        self.in_dtypes = [_program._NUMPY_TYPES.get(t)
                          for t in program.parameter_types]
        self.result_views = _program.result_views(program)
        self.out_tree = out_tree


def _run_entry(entry, leaves, name):
    """Runs `entry`'s program on the argument leaves: its result pytree."""
    if entry.cuda:
        program = entry.program
        arrays = [_cuda.as_cuda_argument(leaf, dtype, program)
                  for leaf, dtype in zip(leaves, entry.in_dtypes)]
        results = [jax.dlpack.from_dlpack(r) for r in program.run(arrays)]
        return entry.out_tree.unflatten(results)
    arrays = _program.host_arguments(leaves, entry.in_dtypes, name)
    results = _program.run_program(entry.program, arrays, entry.result_views)
    return entry.out_tree.unflatten(results)


def _leaf_signature(leaf):
    try:
        return (leaf.shape, leaf.dtype, getattr(leaf, "weak_type", False))
    except AttributeError:
        # A Python scalar: weakly typed, as JAX treats it.
        return (type(leaf), None, True)


def _check_static(fun, nums, names):
    """jax.jit's rule: a static argument may be named by position or by
    name, and each names the other where the signature says so."""
    try:
        parameters = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        return frozenset(nums), frozenset(names)
    positional = [p.name for p in parameters
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    nums = {n if n >= 0 else n + len(parameters) for n in nums}
    names = set(names)
    for n in list(nums):
        if n < len(positional):
            names.add(positional[n])
    for name in list(names):
        if name in positional:
            nums.add(positional.index(name))
    return frozenset(nums), frozenset(names)


def _check_donation(nums, names):
    """jax.jit's types for the donation arguments: an int or ints, a str or
    strs."""
    nums = (nums,) if isinstance(nums, int) else nums
    names = (names,) if isinstance(names, str) else names
    if not all(isinstance(n, int) for n in nums):
        raise TypeError(f"donate_argnums must be ints, got {nums!r}")
    if not all(isinstance(n, str) for n in names):
        raise TypeError(f"donate_argnames must be strings, got {names!r}")


class Jitted:
    """A function compiled by hloc on first call per signature; call it like
    the function. lower(*args) shows what hloc makes of it."""

    def __init__(self, fun, platform="cpu", static_argnums=(),
                 static_argnames=(), verify_each=False, fallback=None,
                 drop_debug_callbacks=False):
        if platform not in _program.platforms():
            raise ValueError(f"unknown platform {platform!r} (available: "
                             f"{', '.join(_program.platforms())})")
        if isinstance(static_argnums, int):
            static_argnums = (static_argnums,)
        if isinstance(static_argnames, str):
            static_argnames = (static_argnames,)
        functools.update_wrapper(self, fun)
        self._fun = fun
        self._name = getattr(fun, "__name__", "function")
        self._platform = platform
        self._verify_each = verify_each
        self._fallback = fallback
        self._drop_debug_callbacks = drop_debug_callbacks
        self._static_nums, self._static_names = _check_static(
            fun, static_argnums, static_argnames)
        # keep_unused: one module parameter per array leaf, so leaves map
        # to parameters by position even when the function ignores some.
        self._jax_fun = jax.jit(fun, static_argnums=tuple(self._static_nums),
                                static_argnames=tuple(self._static_names),
                                keep_unused=True)
        self._dispatch = {}
        self.lowerings = 0

    def _split_static(self, args, kwargs):
        static = []
        dynamic = []
        for i, arg in enumerate(args):
            if i in self._static_nums:
                static.append((i, arg))
            else:
                dynamic.append(arg)
        dynamic_kwargs = {}
        for name, value in kwargs.items():
            if name in self._static_names:
                static.append((name, value))
            else:
                dynamic_kwargs[name] = value
        return tuple(dynamic), dynamic_kwargs, tuple(static)

    def _signature(self, args, kwargs):
        # Every call computes this, so a function without static arguments
        # flattens its arguments as they came (the same tree as split).
        if self._static_nums or self._static_names:
            args, kwargs, static = self._split_static(args, kwargs)
        else:
            static = ()
        leaves, tree = _tree_flatten((args, kwargs))
        key = (tree, tuple([_leaf_signature(leaf) for leaf in leaves]),
               static, jax.config.jax_enable_x64)
        return key, leaves

    def __call__(self, *args, **kwargs):
        key, leaves = self._signature(args, kwargs)
        try:
            entry = self._dispatch.get(key)
        except TypeError as e:
            raise TypeError(
                f"{self._name}: static arguments must be hashable, as with "
                f"jax.jit ({e})") from None
        if entry is None:
            entry = self._compile(key, args, kwargs, len(leaves))
        return _run_entry(entry, leaves, self._name)

    def _lower_with_jax(self, args, kwargs):
        # Shape errors, wrong argument counts and unhashable statics are
        # JAX's to report: its messages name the function and argument.
        lowered = self._jax_fun.lower(*args, **kwargs)
        self.lowerings += 1
        proto = lowered.compiler_ir("hlo").as_serialized_hlo_module_proto()
        return proto, lowered.out_tree

    def _compile(self, key, args, kwargs, num_leaves):
        proto, out_tree = self._lower_with_jax(args, kwargs)
        program = _program.get_program(proto, self._name, self._platform,
                                       self._verify_each, self._fallback,
                                       self._drop_debug_callbacks)
        return self._add_entry(key, program, out_tree, num_leaves)

    def use_executable(self, path, *args, **kwargs):
        """Ahead of time: calls with the signature of `args` run the saved
        executable at `path` (compiled elsewhere from this function, e.g.
        hlo-opt --platform=cuda --stage=executable on its lowering) instead
        of compiling. JAX still lowers once, for the output pytree; hloc's
        compiler is not needed (the GPU machine's runtime-only bundle)."""
        key, leaves = self._signature(args, kwargs)
        _, out_tree = self._lower_with_jax(args, kwargs)
        program = _program.load(path).program
        if program.platform != self._platform:
            raise HlocError(f"{path} is a {program.platform} executable, "
                            f"this function runs on {self._platform}")
        self._add_entry(key, program, out_tree, len(leaves))

    def _add_entry(self, key, program, out_tree, num_leaves):
        if len(program.parameter_types) != num_leaves:
            raise HlocError(
                f"{self._name}: JAX lowered {num_leaves} array arguments to "
                f"{len(program.parameter_types)} parameters")
        if len(program.result_types) != out_tree.num_leaves:
            raise HlocError(
                f"{self._name}: the module has {len(program.result_types)} "
                f"results, the function returns {out_tree.num_leaves} arrays")
        entry = _Entry(program, out_tree)
        self._dispatch[key] = entry
        return entry

    def lower(self, *args, **kwargs):
        """Lowers through JAX and runs hloc's pipeline: a Lowered."""
        key, _ = self._signature(args, kwargs)
        proto, out_tree = self._lower_with_jax(args, kwargs)
        optimized = _program.optimize(_program.parse(proto, self._name),
                                      self._platform, self._verify_each,
                                      self._fallback,
                                      self._drop_debug_callbacks)
        return Lowered(optimized, proto, out_tree, self._name,
                       self._platform, self._verify_each, self._fallback,
                       self._drop_debug_callbacks, jitted=self, key=key)

    def clear_cache(self):
        """Forgets this function's signatures (programs stay cached)."""
        self._dispatch.clear()


def jit(fun=None, *, platform="cpu", static_argnums=(), static_argnames=(),
        donate_argnums=(), donate_argnames=(), verify_each=False,
        fallback=None, drop_debug_callbacks=False):
    """Compiles `fun` with hloc: hloc.jit(f, platform="cpu"), or as a
    decorator, @hloc.jit or @hloc.jit(platform="interpreter").

    platform: "cpu" (LLVM, host JIT), "interpreter" (the reference
    evaluator), "cuda" (compiled here to PTX, run by the CUDA runtime on
    the GPU; JAX GPU arrays in and out through DLPack, no host copy;
    HlocError saying why where there is no GPU or no compiler).
    static_argnums / static_argnames: as jax.jit (hashable values; each new
    value compiles anew). donate_argnums / donate_argnames: accepted as
    jax.jit accepts them, so a jax.jit call site ports unchanged; donation
    only permits reusing an argument's buffer, and hloc never writes its
    arguments (the results are buffers of their own), so the arguments
    stay valid. verify_each: run the verifier after every pass.
    fallback: None (the platform's default), True or False (strict), as
    hloc.compile's. drop_debug_callbacks: hloc runs no Python, so a function
    that calls jax.debug.print, jax.debug.callback, io_callback or
    pure_callback raises HlocError naming each call and its line; True
    drops those whose results are unused (the prints) instead, one notice
    line each on stderr, as hloc.compile's (a pure_callback whose result
    is used still raises).
    """
    _check_donation(donate_argnums, donate_argnames)
    if fun is None:
        return functools.partial(jit, platform=platform,
                                 static_argnums=static_argnums,
                                 static_argnames=static_argnames,
                                 donate_argnums=donate_argnums,
                                 donate_argnames=donate_argnames,
                                 verify_each=verify_each, fallback=fallback,
                                 drop_debug_callbacks=drop_debug_callbacks)
    return Jitted(fun, platform=platform, static_argnums=static_argnums,
                  static_argnames=static_argnames, verify_each=verify_each,
                  fallback=fallback, drop_debug_callbacks=drop_debug_callbacks)
