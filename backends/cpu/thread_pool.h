/** \file A small fork-aware thread pool: parallel_for(n, fn) runs fn(0..n-1) on n threads
 * (the caller is one of them). Created on first use; a pool inherited through fork()
 * has no threads in the child, so it is abandoned and a new one is made there. */
#pragma once

#include <functional>

namespace uopfuzz::backends::cpu {

void parallel_for(int n, const std::function<void(int)>& fn);

}  // namespace uopfuzz::backends::cpu
