"""Programs on the GPU: hloc's cuda runtime (the _hloc_cuda extension, no
LLVM) on DLPack arrays.

A cuda program's arguments may be
  - arrays on its GPU with __dlpack__ (JAX, PyTorch, CuPy, hloc's own
    results): read in place. hloc asks for them with
    __dlpack__(stream=<the program's stream>), so the producer orders its
    pending writes before hloc's kernels and the host does not wait;
  - host arrays (NumPy, JAX CPU arrays, Python scalars): copied in, as
    jax.jit copies a NumPy argument to the device.
Results are written by the kernels into device memory taken per call (from
a pool of blocks whose arrays are gone: python/cuda_bindings.cc) and come
back as DLPack arrays (__dlpack__, __dlpack_device__), which
jax.dlpack.from_dlpack, torch.from_dlpack or cupy.from_dlpack take without a
copy. A call returns once its results are written (like jax.jit followed by
block_until_ready), so they are ready on every stream: their
__dlpack__(stream=...) has nothing to wait for.
"""

import numpy as np

from hloc._errors import HlocError

# The compiling extension carries the runtime; the GPU machine's bundle
# has the runtime-only extension instead. Never both in one process: each
# registers the executable's protobuf descriptors.
try:
    from hloc._hloc import cuda as _hloc_cuda
except ImportError:
    try:
        from hloc import _hloc_cuda
    except ImportError as e:
        _hloc_cuda = None
        _IMPORT_ERROR = str(e)

# DLPack device types (dlpack.h: DLDeviceType).
_DL_CPU = 1
_DL_CUDA = 2
_DL_CUDA_HOST = 3
_UINT16 = np.dtype(np.uint16)

# dlpack_without_stream: device arguments whose producer refused
# __dlpack__(stream=...).
stats = {"dlpack_without_stream": 0}


def _runtime():
    if _hloc_cuda is None:
        raise HlocError("the cuda platform is not available: this hloc has "
                        f"no cuda runtime ({_IMPORT_ERROR})")
    return _hloc_cuda


def load(path, device=0):
    """A saved cuda executable (hlo-opt --platform=cuda --stage=executable
    -o FILE, or hloc's disk cache) on GPU `device`: nothing is compiled, so
    this works where hloc has no compiler (the GPU machine)."""
    return _runtime().load(path, device)


def executable_platform(path):
    """The platform a saved executable is for ("cpu", "cuda", ...)."""
    return _runtime().executable_platform(path)


def load_bytes(executable, device=0):
    """As load(), from the executable's bytes."""
    return _runtime().load_bytes(executable, device)


def dlpack_device(value):
    """(DLPack device type, id) of an array-like, or None for host values
    without __dlpack_device__ (NumPy arrays, scalars, lists)."""
    if isinstance(value, np.ndarray):
        return None
    method = getattr(type(value), "__dlpack_device__", None)
    return None if method is None else tuple(method(value))


def on_gpu(value):
    """Whether `value` is an array on a CUDA GPU (DLPack's kDLCUDA)."""
    device = dlpack_device(value)
    return device is not None and device[0] == _DL_CUDA


def check_on_host(value, index, name):
    """A cpu or interpreter program takes host arrays: a GPU array is an
    error, not a silent copy through the host (jax.jit refuses an array
    committed to another device the same way)."""
    device = dlpack_device(value)
    if device is not None and device[0] not in (_DL_CPU, _DL_CUDA_HOST):
        kind = "cuda" if device[0] == _DL_CUDA else f"DLPack device {device[0]}"
        raise ValueError(
            f"argument {index} of {name} is on {kind}:{device[1]}, and this "
            "program runs on the host: copy it with numpy.asarray(x) or "
            "jax.device_get(x), or use platform=\"cuda\"")


def as_cuda_argument(value, dtype, program):
    """What the extension takes for one argument of `program`: a DLPack
    capsule for an array on a GPU (read in place), else a C-contiguous host
    array of `dtype` (copied in)."""
    device = dlpack_device(value)
    if device is not None and device[0] == _DL_CUDA:
        try:
            return value.__dlpack__(stream=program.stream)
        except (TypeError, NotImplementedError):
            # A producer without the stream keyword (pre-2021 protocol)
            # makes its data ready before it returns: correct, but the host
            # waits. Counted, so a test can tell which way it went.
            stats["dlpack_without_stream"] += 1
            return value.__dlpack__()
    array = np.asarray(value, dtype=dtype)
    if not array.flags.c_contiguous:
        array = np.ascontiguousarray(array)
    # NumPy's bf16 has no DLPack code: it crosses as its bits.
    return array.view(_UINT16) if dtype is not None and dtype.name == \
        "bfloat16" else array
