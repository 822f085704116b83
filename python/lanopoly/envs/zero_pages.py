"""Large zero arrays of which only a few rows get written, made from fresh anonymous memory:
what the vector environment's final observations are (a dense ``(num_envs, OBSERVATION_SIZE)``
array, zero outside the few games that ended in the step).

``numpy.zeros`` of 4 MB is a 4 MB ``memset`` whenever the allocator serves it from memory it
already holds (glibc does once the first such array was freed), 0.2-0.6 ms of CPU per step of
1024 games. An anonymous ``mmap`` is zero by the kernel's promise and costs a page fault only for
the pages that get written (a handful: a row is under 4 KB); it is unmapped when the array and
every view of it are gone, as the array's ``base`` holds it.
"""

from __future__ import annotations

import mmap
from typing import Any

import numpy as np
import numpy.typing as npt


def zero_pages(shape: tuple[int, ...], dtype: npt.DTypeLike) -> npt.NDArray[Any]:
    """A new writable, C-contiguous array of zeros, its pages mapped only once written."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape))
    memory = mmap.mmap(-1, max(count * dtype.itemsize, 1))
    return np.frombuffer(memory, dtype, count).reshape(shape)
