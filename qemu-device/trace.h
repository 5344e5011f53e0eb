#include "trace/trace-hw_vmgpu.h"
