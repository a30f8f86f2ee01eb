"""Compiled programs: the compilation cache and the array conversions.

hloc.compile() and hloc.jit both end here. A module is compiled once per
(fingerprint of its bytes, platform, options): later requests get the same
program from memory, or, with a cache directory, from a saved executable on
disk (cpu and cuda programs; nothing is compiled when one loads), the way
JAX's persistent compilation cache works.

cuda programs are compiled here (_hloc: the pipeline, LLVM, PTX) into a
saved executable's bytes, which the cuda runtime (_hloc_cuda, hloc/_cuda.py)
loads and runs on DLPack arrays. A package without the compiler (the GPU
machine's bundle) still loads saved executables: hloc.load().
"""

import hashlib
import os
import tempfile
import threading

import ml_dtypes
import numpy as np

from hloc import _cuda
from hloc._errors import HlocError

try:
    from hloc import _hloc
except ImportError as e:  # The runtime-only package (no LLVM).
    _hloc = None
    _NO_COMPILER = ("this hloc has no compiler (a runtime-only build: "
                    f"{e}); hloc.load() runs saved cuda executables, "
                    "made with hlo-opt --platform=cuda --stage=executable")

# HLO element types and the NumPy dtypes that hold them.
_NUMPY_TYPES = {
    "pred": np.dtype(np.bool_),
    "s8": np.dtype(np.int8),
    "s16": np.dtype(np.int16),
    "s32": np.dtype(np.int32),
    "s64": np.dtype(np.int64),
    "u8": np.dtype(np.uint8),
    "u16": np.dtype(np.uint16),
    "u32": np.dtype(np.uint32),
    "u64": np.dtype(np.uint64),
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "c64": np.dtype(np.complex64),
    "c128": np.dtype(np.complex128),
    "f8e5m2": np.dtype(ml_dtypes.float8_e5m2),
    "f8e4m3": np.dtype(ml_dtypes.float8_e4m3),
    "f8e3m4": np.dtype(ml_dtypes.float8_e3m4),
    "f8e4m3fn": np.dtype(ml_dtypes.float8_e4m3fn),
    "f8e4m3fnuz": np.dtype(ml_dtypes.float8_e4m3fnuz),
    "f8e5m2fnuz": np.dtype(ml_dtypes.float8_e5m2fnuz),
    "f8e4m3b11fnuz": np.dtype(ml_dtypes.float8_e4m3b11fnuz),
    "f4e2m1fn": np.dtype(ml_dtypes.float4_e2m1fn),
    "f8e8m0fnu": np.dtype(ml_dtypes.float8_e8m0fnu),
    "s4": np.dtype(ml_dtypes.int4),
    "u4": np.dtype(ml_dtypes.uint4),
    "s2": np.dtype(ml_dtypes.int2),
    "u2": np.dtype(ml_dtypes.uint2),
}
_BF16 = _NUMPY_TYPES["bf16"]
# ml_dtypes' types have no buffer-protocol code: they cross as their bits
# (sub-byte integers in ml_dtypes' form, the low bits, which hloc reads
# as such: hlo/sub_byte_int.h).
_BITS_OF = {dtype: np.dtype(np.uint16 if dtype == _BF16 else np.uint8)
            for name, dtype in _NUMPY_TYPES.items()
            if name == "bf16" or dtype.itemsize == 1 and (
                name.startswith("f") or name in ("s4", "u4", "s2", "u2"))}

_lock = threading.Lock()
_programs = {}
_stats = {"compilations": 0, "memory_hits": 0, "disk_hits": 0,
          "disk_writes": 0}
_cache_dir = os.environ.get("HLOC_CACHE_DIR") or None


def compiler():
    """The compiling extension, or HlocError saying this build has none."""
    if _hloc is None:
        raise HlocError(_NO_COMPILER)
    return _hloc


def platforms():
    """The platforms hloc knows: interpreter, cpu, cuda."""
    if _hloc is None:
        return ["cuda"]
    return list(_hloc.platforms())


def stages(platform="cpu"):
    """The stages Lowered.stage() prints for `platform`, in compilation
    order: "hlo", then the platform backend's."""
    return list(compiler().stages(platform))


def set_cache_dir(path):
    """Saves compiled cpu and cuda programs under `path` and loads them
    from there (None turns the disk cache off). $HLOC_CACHE_DIR sets it at
    import."""
    global _cache_dir
    if path is not None:
        os.makedirs(path, exist_ok=True)
    _cache_dir = path


def cache_stats():
    """Counters since the start (or clear_cache()): compilations (modules
    compiled), memory_hits, disk_hits (loaded, not compiled), disk_writes."""
    with _lock:
        return dict(_stats)


def clear_cache():
    """Forgets every compiled program held in memory and zeroes the
    counters (the disk cache stays)."""
    with _lock:
        _programs.clear()
        for key in _stats:
            _stats[key] = 0


def _count(counter):
    with _lock:
        _stats[counter] += 1


def _options_key(platform, verify_each, fallback, drop_debug_callbacks):
    return (platform, ("verify_each", bool(verify_each)),
            ("fallback", fallback),
            ("drop_debug_callbacks", bool(drop_debug_callbacks)))


def parse(contents, name):
    """Parses and verifies HLO text (str) or HloModuleProto bytes."""
    fmt = "pb" if isinstance(contents, (bytes, bytearray)) else "hlo"
    return compiler().parse(contents, fmt, name)


def optimize(module, platform, verify_each=False, fallback=None,
             drop_debug_callbacks=False):
    """Runs the platform's pipeline on a parsed module: an
    _hloc.OptimizedModule (its text, fusion report and stages)."""
    return compiler().optimize(module, platform, verify_each=verify_each,
                               saveable=_cache_dir is not None,
                               allow_fallback=fallback,
                               drop_debug_callbacks=bool(drop_debug_callbacks))


def get_program(contents, name, platform, verify_each=False, fallback=None,
                drop_debug_callbacks=False):
    """The compiled program of a module, from the cache when it has one.

    The fingerprint is of the module's text without metadata, so the same
    computation lowered from another call site (JAX puts the Python stack
    in the metadata) is the same entry."""
    module = parse(contents, name)
    options = _options_key(platform, verify_each, fallback,
                           drop_debug_callbacks)
    key = (hashlib.sha256(module.canonical_text()).hexdigest(), options)
    with _lock:
        program = _programs.get(key)
    if program is not None:
        _count("memory_hits")
        return program
    cache_dir = _cache_dir
    path = None
    if cache_dir is not None and platform in ("cpu", "cuda"):
        digest = hashlib.sha256(repr(key).encode()).hexdigest()
        path = os.path.join(cache_dir, digest + ".hloexe")
        if os.path.exists(path):
            try:
                program = (_cuda.load(path) if platform == "cuda" else
                           _hloc.load(path))
                _count("disk_hits")
            except HlocError as e:
                # No GPU here says nothing about the file: compiling anew
                # would fail the same way after the work.
                if "the cuda platform is not available" in str(e):
                    raise
                # Written by another hloc or for another CPU: compile anew
                # and overwrite it.
                program = None
    if program is None:
        optimized = optimize(module, platform, verify_each, fallback,
                             drop_debug_callbacks)
        if platform == "cuda":
            program = _compile_for_cuda(optimized, path)
        else:
            program = optimized.compile()
            if path is not None:
                _save(program.save, path)
        _count("compilations")
    with _lock:
        _programs[key] = program
    return program


def _compile_for_cuda(optimized, path):
    """Compiles here (the executable's bytes: kernels as PTX and cubin, the
    thunks, the buffer plan), then loads onto the GPU with the runtime, as
    the GPU machine loads a saved one."""
    executable = optimized.executable_bytes()
    if path is not None:
        def write(tmp):
            with open(tmp, "wb") as f:
                f.write(executable)
        _save(write, path)
    return _cuda.load_bytes(executable)


def _save(write, path):
    # Written under another name and renamed: a reader never sees half a
    # file, and two processes writing the same entry both succeed.
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
    os.close(fd)
    try:
        write(tmp)
        os.replace(tmp, path)
        _count("disk_writes")
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def as_argument(value, dtype, index=0, name="the program"):
    """`value` as the C-contiguous NumPy array of `dtype` the extension
    takes in place: no copy when it already is one (JAX CPU arrays too; a
    JAX array sharded over several CPU devices is gathered). A GPU array is
    a ValueError (see _cuda.check_on_host)."""
    if _placement(value) is _ELSEWHERE:
        _cuda.check_on_host(value, index, name)
    array = np.asarray(value, dtype=dtype)
    if not array.flags.c_contiguous:
        array = np.ascontiguousarray(array)
    # ml_dtypes' floats have no buffer-protocol code: they cross as bits.
    bits = _BITS_OF.get(dtype)
    return array.view(bits) if bits is not None else array


# Where a value's memory is, as far as its sharding says (JAX arrays):
# on one CPU device (the extension reads its buffer in place), on several
# (numpy.asarray gathers them; JAX has no DLPack export for them), or
# elsewhere or unknown (_cuda.check_on_host asks DLPack, ~1.6 us a JAX
# array, which refuses a GPU array).
_ONE_HOST_DEVICE = "one host device"
_HOST_DEVICES = "host devices"
_ELSEWHERE = "elsewhere"
# A sharding -> its placement: a process sees few shardings, and the
# look-up costs a third of a JAX array's __dlpack_device__.
_placements = {}


def _placement(value):
    sharding = getattr(value, "sharding", None)
    if sharding is None:
        return _ELSEWHERE
    try:
        placement = _placements.get(sharding)
    except TypeError:  # An unhashable sharding: DLPack decides.
        return _ELSEWHERE
    if placement is None:
        platforms = [getattr(d, "platform", None)
                     for d in getattr(sharding, "device_set", ())]
        if not platforms or any(p != "cpu" for p in platforms):
            placement = _ELSEWHERE
        elif len(platforms) == 1:
            placement = _ONE_HOST_DEVICE
        else:
            placement = _HOST_DEVICES
        _placements[sharding] = placement
    return placement


def host_arguments(values, dtypes, name):
    """What the extension takes for each value: the value itself where it
    is a NumPy array or a one-CPU-device JAX array of the parameter's dtype
    (the extension reads its buffer in place, or copies it where it is not
    C-contiguous or aligned), else as_argument's checked conversion (a GPU
    array's error, Python scalars, other dtypes, bf16, which crosses as its
    bits)."""
    arrays = []
    for i, (value, dtype) in enumerate(zip(values, dtypes)):
        if ((type(value) is np.ndarray or
             _placement(value) is _ONE_HOST_DEVICE) and
                value.dtype is dtype and dtype not in _BITS_OF):
            arrays.append(value)
        else:
            arrays.append(as_argument(value, dtype, i, name))
    return arrays


def result_views(program):
    """(index, dtype) of each result leaf that must be viewed as another
    dtype than it crosses as: cpu bf16 leaves (cuda results are DLPack
    arrays that say bf16 themselves)."""
    if program.platform == "cuda":
        return []
    return [(i, _NUMPY_TYPES[t]) for i, t in enumerate(program.result_types)
            if _NUMPY_TYPES.get(t) in _BITS_OF]


def run_program(program, arrays, views):
    """Runs on converted arguments; a list of NumPy arrays, one per result
    leaf, owning the memory the program wrote. `views`: result_views."""
    results = program.run(arrays)
    for i, dtype in views:
        results[i] = results[i].view(dtype)
    return results


class Executable:
    """A compiled HLO module: run(*arrays) returns its result as NumPy
    arrays (a tuple for a tuple result); a cuda program's as DLPack arrays
    on its GPU (see hloc/_cuda.py)."""

    def __init__(self, program, name):
        self._program = program
        self._name = name
        self._dtypes = [_NUMPY_TYPES.get(t) for t in program.parameter_types]
        self._shapes = list(program.parameter_shapes)
        self._dims = [tuple(d) for d in program.parameter_dims]
        self._result_views = result_views(program)
        self._tuple = program.result_is_tuple

    @property
    def platform(self):
        return self._program.platform

    @property
    def program(self):
        """The extension's program (cuda: stream, host_transfers,
        last_parameter_addresses, last_result_addresses, loaded_code)."""
        return self._program

    @property
    def fallback_runs(self):
        """How many steps ran in the reference evaluator so far (cpu)."""
        return self._program.fallback_runs

    def run(self, *arrays):
        """Checks the arguments against the parameters (count, dtype, shape:
        TypeError or ValueError naming the argument; a GPU array given to a
        cuda program is checked by the runtime, HlocError), then runs."""
        if len(arrays) != len(self._dtypes):
            raise TypeError(f"{self._name} takes {len(self._dtypes)} "
                            f"arguments, given {len(arrays)}")
        converted = []
        cuda = self.platform == "cuda"
        for i, (value, dtype, shape, dims) in enumerate(
                zip(arrays, self._dtypes, self._shapes, self._dims)):
            if cuda and _cuda.on_gpu(value):
                # Checked by the runtime against the parameter (dtype,
                # shape, device, layout): no host copy to look at it.
                converted.append(
                    _cuda.as_cuda_argument(value, dtype, self._program))
                continue
            if not cuda and _placement(value) is _ELSEWHERE:
                _cuda.check_on_host(value, i, self._name)
            array = np.asarray(value)
            if dtype is None or array.dtype != dtype:
                raise TypeError(
                    f"argument {i} of {self._name}: the parameter is "
                    f"{shape}, given an array of {array.dtype}")
            if array.shape != dims:
                raise ValueError(
                    f"argument {i} of {self._name}: the parameter is "
                    f"{shape}, given shape {array.shape}")
            converted.append(as_argument(array, dtype))
        results = run_program(self._program, converted, self._result_views)
        return tuple(results) if self._tuple else results[0]

    def save(self, path):
        """Writes the executable (cpu programs compiled with a cache
        directory set, or loaded from one)."""
        if self.platform == "cuda":
            raise HlocError("cuda programs are saved by the disk cache "
                            "(hloc.set_cache_dir) or hlo-opt --stage=executable")
        self._program.save(path)


def load(path, device=0):
    """A saved executable: cuda (hlo-opt --platform=cuda --stage=executable
    -o FILE) onto GPU `device`, or cpu. Nothing is compiled, so cuda
    executables load where hloc has no compiler (the GPU machine)."""
    if _cuda.executable_platform(path) == "cuda":
        program = _cuda.load(path, device)
    else:
        program = compiler().load(path)
    return Executable(program, os.path.basename(path))


def compile(module, platform="cpu", *, name=None, verify_each=False,
            fallback=None, drop_debug_callbacks=False):
    """Compiles an HLO module given as HLO text (str) or a serialized
    HloModuleProto (bytes), e.g. jax.jit(f).lower(x).compiler_ir("hlo")
    .as_serialized_hlo_module_proto(). Cached like hloc.jit's programs.

    fallback: None (the platform's default), True (cpu: what code
    generation declines runs in the evaluator, one warning line each on
    stderr) or False (strict: compiling raises HlocError listing every such
    instruction and why), as hlo-opt's --fallback / --no-fallback.
    drop_debug_callbacks: hloc runs no Python, so a module with JAX host
    callbacks (jax.debug.print, jax.debug.callback, io_callback,
    pure_callback) raises HlocError naming each; True drops those whose
    results are unused instead, one notice line each on stderr, as
    hlo-opt's --drop-debug-callbacks (a used one still raises)."""
    if not isinstance(module, (str, bytes, bytearray)):
        raise TypeError("hloc.compile takes HLO text (str) or a serialized "
                        f"HloModuleProto (bytes), not {type(module).__name__}")
    name = name or "<module>"
    program = get_program(module, name, platform, verify_each, fallback,
                          drop_debug_callbacks)
    return Executable(program, name)
