// SPDX-License-Identifier: MIT
/*
 * libvmgpu-opencl: devices. One per physical device of the runtime, in
 * its order: the GPUs (CL_DEVICE_TYPE_GPU), then with two GPUs or more
 * the multi-GPU device (a GPU device too, its caps the GPUs' together:
 * multigpu.c), then the runtime's CPU device (CL_DEVICE_TYPE_CPU). The
 * default device is the first GPU. Every clGetDeviceInfo answer of
 * OpenCL 1.2 comes from the device's real limits (struct vmgpu_rt_caps
 * and the ISA's limits in vmgpu_hw.h); what the device does not have is
 * said so (no images, no fp64: Documentation/opencl.rst).
 */
#include <string.h>

#include "opencl_internal.h"
#include "vmgpu.h"

/* The built-in atomics and stores the compiler gives every device. */
#define VCL_EXT_BASE \
	"cl_khr_global_int32_base_atomics cl_khr_global_int32_extended_atomics " \
	"cl_khr_byte_addressable_store"
/* Local-memory atomics need ISA version 2 (shared-memory atomics). */
#define VCL_EXT_LOCAL \
	" cl_khr_local_int32_base_atomics cl_khr_local_int32_extended_atomics"

bool vcl_device_valid(struct _cl_platform_id *p, cl_device_id d)
{
	return vcl_obj_get(p, d, VCL_DEVICE, false);
}

cl_int vcl_clGetDeviceIDs(cl_platform_id platform, cl_device_type device_type,
			  cl_uint num_entries, cl_device_id *devices,
			  cl_uint *num_devices)
{
	struct _cl_platform_id *p = vcl_platform(NULL);
	const cl_device_type known = CL_DEVICE_TYPE_DEFAULT |
		CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU |
		CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_CUSTOM;
	cl_uint i, n = 0;

	if (!p || (platform && platform != p))
		return CL_INVALID_PLATFORM;
	if (device_type != CL_DEVICE_TYPE_ALL && (device_type & ~known ||
						  !device_type))
		return CL_INVALID_DEVICE_TYPE;
	if ((!num_entries && devices) || (!devices && !num_devices))
		return CL_INVALID_VALUE;
	for (i = 0; i < p->ndevices; i++) {
		struct _cl_device_id *d = &p->devices[i];
		/* The default device: the first, a GPU when there is one. */
		bool want = device_type == CL_DEVICE_TYPE_ALL ||
			    (device_type & d->type) ||
			    ((device_type & CL_DEVICE_TYPE_DEFAULT) && i == 0);

		if (!want)
			continue;
		if (devices && n < num_entries)
			devices[n] = d;
		n++;
	}
	if (num_devices)
		*num_devices = n;
	return n ? CL_SUCCESS : CL_DEVICE_NOT_FOUND;
}

cl_int vcl_clRetainDevice(cl_device_id device)
{
	return vcl_device_valid(vcl_platform(NULL), device) ? CL_SUCCESS :
							    CL_INVALID_DEVICE;
}

cl_int vcl_clReleaseDevice(cl_device_id device)
{
	return vcl_clRetainDevice(device);
}

cl_int vcl_clCreateSubDevices(cl_device_id in_device,
			      const cl_device_partition_property *properties,
			      cl_uint num_devices, cl_device_id *out_devices,
			      cl_uint *num_devices_ret)
{
	if (!vcl_device_valid(vcl_platform(NULL), in_device))
		return CL_INVALID_DEVICE;
	/* CL_DEVICE_PARTITION_PROPERTIES is empty: no partition is known. */
	return CL_INVALID_VALUE;
}

/* The largest buffer: a quarter of the memory, at least 128 MiB. */
static cl_ulong max_alloc(cl_ulong global)
{
	cl_ulong q = global / 4;

	if (q < (128ull << 20))
		q = 128ull << 20;
	return q < global ? q : global;
}

static cl_ulong global_mem(const struct _cl_device_id *d)
{
	/* The CPU device works in the host's memory; say 1 GiB of it. */
	return d->caps.local_mem_mb ? (cl_ulong)d->caps.local_mem_mb << 20 :
				      1ull << 30;
}

cl_int vcl_clGetDeviceInfo(cl_device_id device, cl_device_info param_name,
			   size_t param_value_size, void *param_value,
			   size_t *param_value_size_ret)
{
	struct _cl_platform_id *p = vcl_platform(NULL);
	const struct _cl_device_id *d = device;
	union {
		cl_uint u;
		cl_ulong ul;
		cl_bool b;
		size_t sz;
		size_t sizes[3];
		cl_device_type type;
		cl_device_fp_config fp;
		cl_device_mem_cache_type cache;
		cl_device_local_mem_type local;
		cl_device_exec_capabilities exec;
		cl_command_queue_properties queue;
		cl_platform_id platform;
		cl_device_id dev;
		cl_device_partition_property part;
		cl_device_affinity_domain affinity;
	} v;
	size_t n;
	char ext[512];

	if (!vcl_device_valid(p, device))
		return CL_INVALID_DEVICE;
	memset(&v, 0, sizeof(v));
#define U(x)	(v.u = (cl_uint)(x), n = sizeof(v.u))
#define UL(x)	(v.ul = (cl_ulong)(x), n = sizeof(v.ul))
#define B(x)	(v.b = (x) ? CL_TRUE : CL_FALSE, n = sizeof(v.b))
#define SZ(x)	(v.sz = (size_t)(x), n = sizeof(v.sz))
#define STR(s)	return vcl_info_str((s), param_value_size, param_value, \
				    param_value_size_ret)
	switch (param_name) {
	case CL_DEVICE_TYPE:
		v.type = d->type;
		n = sizeof(v.type);
		break;
	case CL_DEVICE_VENDOR_ID:
		U(VMGPU_PCI_VENDOR_ID);
		break;
	case CL_DEVICE_MAX_COMPUTE_UNITS:
		U(d->caps.compute_units);
		break;
	case CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS:
		U(3);
		break;
	case CL_DEVICE_MAX_WORK_ITEM_SIZES:
		v.sizes[0] = v.sizes[1] = v.sizes[2] = d->caps.max_block_threads;
		n = sizeof(v.sizes);
		break;
	case CL_DEVICE_MAX_WORK_GROUP_SIZE:
		SZ(d->caps.max_block_threads);
		break;
	/* Vectors are scalarised: one lane of each type at a time. */
	case CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR:
	case CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT:
	case CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT:
	case CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG:
	case CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT:
	case CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR:
	case CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT:
	case CL_DEVICE_NATIVE_VECTOR_WIDTH_INT:
	case CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG:
	case CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT:
		U(1);
		break;
	case CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE:
	case CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF:
	case CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE:
	case CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF:
		U(0);
		break;
	case CL_DEVICE_MAX_CLOCK_FREQUENCY:
		U(d->caps.clock_khz / 1000);
		break;
	case CL_DEVICE_ADDRESS_BITS:
		U(64);
		break;
	case CL_DEVICE_MAX_MEM_ALLOC_SIZE:
		UL(max_alloc(global_mem(d)));
		break;
	case CL_DEVICE_GLOBAL_MEM_SIZE:
		UL(global_mem(d));
		break;
	case CL_DEVICE_IMAGE_SUPPORT:
		B(0);
		break;
	case CL_DEVICE_MAX_READ_IMAGE_ARGS:
	case CL_DEVICE_MAX_WRITE_IMAGE_ARGS:
	case CL_DEVICE_MAX_SAMPLERS:
		U(0);
		break;
	case CL_DEVICE_IMAGE2D_MAX_WIDTH:
	case CL_DEVICE_IMAGE2D_MAX_HEIGHT:
	case CL_DEVICE_IMAGE3D_MAX_WIDTH:
	case CL_DEVICE_IMAGE3D_MAX_HEIGHT:
	case CL_DEVICE_IMAGE3D_MAX_DEPTH:
	case CL_DEVICE_IMAGE_MAX_BUFFER_SIZE:
	case CL_DEVICE_IMAGE_MAX_ARRAY_SIZE:
		SZ(0);
		break;
	case CL_DEVICE_MAX_PARAMETER_SIZE:
		/*
		 * The full profile's minimum: what VMGPU_MAX_PARAMS is made
		 * for. The argument block is larger, but a parameter takes
		 * at least 4 bytes of it, and a signature 260 of them.
		 */
		SZ(1024);
		break;
	case CL_DEVICE_MEM_BASE_ADDR_ALIGN:
		U(VMGPU_PAGE_SIZE * 8);	/* bits: buffers start on a page */
		break;
	case CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE:
		U(128);			/* long16, the largest type */
		break;
	case CL_DEVICE_SINGLE_FP_CONFIG:
		/*
		 * IEEE round to nearest, fused multiply-add, subnormals
		 * kept; '/' and sqrt are the ISA's correctly rounded fdiv
		 * and sqrt whatever the build options.
		 */
		v.fp = CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN | CL_FP_FMA |
		       CL_FP_DENORM | CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT;
		n = sizeof(v.fp);
		break;
	case CL_DEVICE_DOUBLE_FP_CONFIG:
		v.fp = 0;
		n = sizeof(v.fp);
		break;
	case CL_DEVICE_GLOBAL_MEM_CACHE_TYPE:
		v.cache = CL_NONE;	/* the model has no cache */
		n = sizeof(v.cache);
		break;
	case CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE:
		U(0);
		break;
	case CL_DEVICE_GLOBAL_MEM_CACHE_SIZE:
		UL(0);
		break;
	case CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE:
		UL(64 * 1024);
		break;
	case CL_DEVICE_MAX_CONSTANT_ARGS:
		U(8);
		break;
	case CL_DEVICE_LOCAL_MEM_TYPE:
		v.local = CL_LOCAL;
		n = sizeof(v.local);
		break;
	case CL_DEVICE_LOCAL_MEM_SIZE:
		UL(d->caps.shared_mem_per_block);
		break;
	case CL_DEVICE_ERROR_CORRECTION_SUPPORT:
		B(0);
		break;
	case CL_DEVICE_HOST_UNIFIED_MEMORY:
		B(d->type == CL_DEVICE_TYPE_CPU);
		break;
	case CL_DEVICE_PROFILING_TIMER_RESOLUTION:
		SZ(1);			/* the virtual clock counts ns */
		break;
	case CL_DEVICE_ENDIAN_LITTLE:
	case CL_DEVICE_AVAILABLE:
	case CL_DEVICE_COMPILER_AVAILABLE:
	case CL_DEVICE_LINKER_AVAILABLE:
	case CL_DEVICE_PREFERRED_INTEROP_USER_SYNC:
		B(1);
		break;
	case CL_DEVICE_EXECUTION_CAPABILITIES:
		v.exec = CL_EXEC_KERNEL;
		n = sizeof(v.exec);
		break;
	case CL_DEVICE_QUEUE_PROPERTIES:
		v.queue = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
			  CL_QUEUE_PROFILING_ENABLE;
		n = sizeof(v.queue);
		break;
	case CL_DEVICE_PLATFORM:
		v.platform = p;
		n = sizeof(v.platform);
		break;
	case CL_DEVICE_PARENT_DEVICE:
		v.dev = NULL;
		n = sizeof(v.dev);
		break;
	case CL_DEVICE_PARTITION_MAX_SUB_DEVICES:
		U(0);
		break;
	case CL_DEVICE_PARTITION_PROPERTIES:
	case CL_DEVICE_PARTITION_TYPE:
		v.part = 0;
		n = sizeof(v.part);
		break;
	case CL_DEVICE_PARTITION_AFFINITY_DOMAIN:
		v.affinity = 0;
		n = sizeof(v.affinity);
		break;
	case CL_DEVICE_REFERENCE_COUNT:
		U(1);			/* root devices are not counted */
		break;
	case CL_DEVICE_PRINTF_BUFFER_SIZE:
		/* each kernel instance's own (the runtime's, vmgpu/compiler.h) */
		SZ(VMGPU_PRINTF_BUFFER_BYTES);
		break;
	case CL_DEVICE_NAME:
		STR(d->caps.name);
	case CL_DEVICE_VENDOR:
		STR("vmgpu");
	case CL_DRIVER_VERSION:
		STR(VMGPU_VERSION);
	case CL_DEVICE_PROFILE:
		STR("FULL_PROFILE");
	case CL_DEVICE_VERSION:
		STR("OpenCL 1.2 vmgpu " VMGPU_VERSION);
	case CL_DEVICE_OPENCL_C_VERSION:
		STR("OpenCL C 1.2 ");
	case CL_DEVICE_BUILT_IN_KERNELS:
		STR("");
	case CL_DEVICE_EXTENSIONS:
		strcpy(ext, VCL_EXT_BASE);
		if (d->caps.isa_version >= 2)
			strcat(ext, VCL_EXT_LOCAL);
		STR(ext);
	default:
		return CL_INVALID_VALUE;
	}
#undef U
#undef UL
#undef B
#undef SZ
#undef STR
	return vcl_info(&v, n, param_value_size, param_value,
			param_value_size_ret);
}
