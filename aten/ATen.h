#pragma once
// What kernel and binding code includes: the Tensor class plus the generated C++ API
// (tl::add, Tensor::add, ...), whose inline method definitions need the full class.
#include "aten/core/Tensor.h"
#include "generated/Functions.h"
