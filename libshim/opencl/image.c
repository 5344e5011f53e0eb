// SPDX-License-Identifier: MIT
/*
 * libvmgpu-opencl: images and samplers, which no vmgpu device has
 * (CL_DEVICE_IMAGE_SUPPORT is false): the calls answer as OpenCL 1.2
 * says for such a device — no image format, CL_INVALID_OPERATION for an
 * image or a sampler whose arguments are right, CL_INVALID_MEM_OBJECT
 * where an image is wanted and CL_INVALID_SAMPLER where a sampler is
 * (there is none) — after checking their context or queue, flags and
 * descriptions as any call, so that a wrong argument is named as such.
 */
#include "opencl_internal.h"

#define VCL_IMAGE_TYPES_OK(t) \
	((t) == CL_MEM_OBJECT_IMAGE2D || (t) == CL_MEM_OBJECT_IMAGE3D || \
	 (t) == CL_MEM_OBJECT_IMAGE2D_ARRAY || \
	 (t) == CL_MEM_OBJECT_IMAGE1D || (t) == CL_MEM_OBJECT_IMAGE1D_ARRAY || \
	 (t) == CL_MEM_OBJECT_IMAGE1D_BUFFER)

/* Memory flags as clCreateBuffer takes them: known, none twice. */
static bool flags_ok(cl_mem_flags f)
{
	const cl_mem_flags access = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY |
				    CL_MEM_READ_ONLY;
	const cl_mem_flags host = CL_MEM_HOST_WRITE_ONLY |
				  CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;
	const cl_mem_flags ptr = CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR |
				 CL_MEM_COPY_HOST_PTR;

	return !(f & ~(access | host | ptr)) &&
	       !((f & access) & ((f & access) - 1)) &&
	       !((f & host) & ((f & host) - 1)) &&
	       !((f & CL_MEM_USE_HOST_PTR) &&
		 (f & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)));
}

cl_int vcl_clGetSupportedImageFormats(cl_context context, cl_mem_flags flags,
				      cl_mem_object_type image_type,
				      cl_uint num_entries,
				      cl_image_format *image_formats,
				      cl_uint *num_image_formats)
{
	if (!vcl_obj_get(vcl_platform(NULL), context, VCL_CONTEXT, false))
		return CL_INVALID_CONTEXT;
	if (!VCL_IMAGE_TYPES_OK(image_type) || !flags_ok(flags) ||
	    (!num_entries && image_formats))
		return CL_INVALID_VALUE;
	if (num_image_formats)
		*num_image_formats = 0;
	return CL_SUCCESS;
}

/*
 * An image's arguments, in the order of 1.2's list of errors; right, it
 * is refused all the same: no device of the context has images.
 */
static void *no_image(cl_context context, cl_mem_flags flags,
		      const cl_image_format *format, bool desc_ok,
		      void *host_ptr, cl_int *errcode_ret)
{
	cl_int err;

	if (!vcl_obj_get(vcl_platform(NULL), context, VCL_CONTEXT, false))
		err = CL_INVALID_CONTEXT;
	else if (!flags_ok(flags))
		err = CL_INVALID_VALUE;
	else if (!format)
		err = CL_INVALID_IMAGE_FORMAT_DESCRIPTOR;
	else if (!desc_ok)
		err = CL_INVALID_IMAGE_DESCRIPTOR;
	else if (!host_ptr != !(flags & (CL_MEM_USE_HOST_PTR |
					 CL_MEM_COPY_HOST_PTR)))
		err = CL_INVALID_HOST_PTR;
	else
		err = CL_INVALID_OPERATION;
	if (errcode_ret)
		*errcode_ret = err;
	return NULL;
}

cl_mem vcl_clCreateImage(cl_context context, cl_mem_flags flags,
			 const cl_image_format *image_format,
			 const cl_image_desc *image_desc, void *host_ptr,
			 cl_int *errcode_ret)
{
	return no_image(context, flags, image_format,
			image_desc && VCL_IMAGE_TYPES_OK(image_desc->image_type),
			host_ptr, errcode_ret);
}

cl_mem vcl_clCreateImage2D(cl_context context, cl_mem_flags flags,
			   const cl_image_format *image_format,
			   size_t image_width, size_t image_height,
			   size_t image_row_pitch, void *host_ptr,
			   cl_int *errcode_ret)
{
	return no_image(context, flags, image_format, true, host_ptr,
			errcode_ret);
}

cl_mem vcl_clCreateImage3D(cl_context context, cl_mem_flags flags,
			   const cl_image_format *image_format,
			   size_t image_width, size_t image_height,
			   size_t image_depth, size_t image_row_pitch,
			   size_t image_slice_pitch, void *host_ptr,
			   cl_int *errcode_ret)
{
	return no_image(context, flags, image_format, true, host_ptr,
			errcode_ret);
}

cl_sampler vcl_clCreateSampler(cl_context context, cl_bool normalized_coords,
			       cl_addressing_mode addressing_mode,
			       cl_filter_mode filter_mode, cl_int *errcode_ret)
{
	cl_int err;

	if (!vcl_obj_get(vcl_platform(NULL), context, VCL_CONTEXT, false))
		err = CL_INVALID_CONTEXT;
	else if ((normalized_coords != CL_TRUE &&
		  normalized_coords != CL_FALSE) ||
		 addressing_mode < CL_ADDRESS_NONE ||
		 addressing_mode > CL_ADDRESS_MIRRORED_REPEAT ||
		 (filter_mode != CL_FILTER_NEAREST &&
		  filter_mode != CL_FILTER_LINEAR))
		err = CL_INVALID_VALUE;
	else
		err = CL_INVALID_OPERATION;
	if (errcode_ret)
		*errcode_ret = err;
	return NULL;
}

/* No handle is a sampler: none is ever made. */
cl_int vcl_clRetainSampler(cl_sampler sampler)
{
	return CL_INVALID_SAMPLER;
}

cl_int vcl_clReleaseSampler(cl_sampler sampler)
{
	return CL_INVALID_SAMPLER;
}

cl_int vcl_clGetSamplerInfo(cl_sampler sampler, cl_sampler_info param_name,
			    size_t param_value_size, void *param_value,
			    size_t *param_value_size_ret)
{
	return CL_INVALID_SAMPLER;
}

/* Where an image is wanted, there is none: no handle is one. */
static cl_int not_an_image(cl_command_queue q)
{
	return vcl_obj_get(vcl_platform(NULL), q, VCL_QUEUE, false) ?
	       CL_INVALID_MEM_OBJECT : CL_INVALID_COMMAND_QUEUE;
}

cl_int vcl_clGetImageInfo(cl_mem image, cl_image_info param_name,
			  size_t param_value_size, void *param_value,
			  size_t *param_value_size_ret)
{
	return CL_INVALID_MEM_OBJECT;
}

cl_int vcl_clEnqueueReadImage(cl_command_queue command_queue, cl_mem image,
			      cl_bool blocking_read, const size_t *origin,
			      const size_t *region, size_t row_pitch,
			      size_t slice_pitch, void *ptr,
			      cl_uint num_events_in_wait_list,
			      const cl_event *event_wait_list, cl_event *event)
{
	return not_an_image(command_queue);
}

cl_int vcl_clEnqueueWriteImage(cl_command_queue command_queue, cl_mem image,
			       cl_bool blocking_write, const size_t *origin,
			       const size_t *region, size_t input_row_pitch,
			       size_t input_slice_pitch, const void *ptr,
			       cl_uint num_events_in_wait_list,
			       const cl_event *event_wait_list, cl_event *event)
{
	return not_an_image(command_queue);
}

cl_int vcl_clEnqueueFillImage(cl_command_queue command_queue, cl_mem image,
			      const void *fill_color, const size_t origin[3],
			      const size_t region[3],
			      cl_uint num_events_in_wait_list,
			      const cl_event *event_wait_list, cl_event *event)
{
	return not_an_image(command_queue);
}

cl_int vcl_clEnqueueCopyImage(cl_command_queue command_queue,
			      cl_mem src_image, cl_mem dst_image,
			      const size_t *src_origin,
			      const size_t *dst_origin, const size_t *region,
			      cl_uint num_events_in_wait_list,
			      const cl_event *event_wait_list, cl_event *event)
{
	return not_an_image(command_queue);
}

cl_int vcl_clEnqueueCopyImageToBuffer(cl_command_queue command_queue,
				      cl_mem src_image, cl_mem dst_buffer,
				      const size_t *src_origin,
				      const size_t *region, size_t dst_offset,
				      cl_uint num_events_in_wait_list,
				      const cl_event *event_wait_list,
				      cl_event *event)
{
	return not_an_image(command_queue);
}

cl_int vcl_clEnqueueCopyBufferToImage(cl_command_queue command_queue,
				      cl_mem src_buffer, cl_mem dst_image,
				      size_t src_offset,
				      const size_t *dst_origin,
				      const size_t *region,
				      cl_uint num_events_in_wait_list,
				      const cl_event *event_wait_list,
				      cl_event *event)
{
	return not_an_image(command_queue);
}

void *vcl_clEnqueueMapImage(cl_command_queue command_queue, cl_mem image,
			    cl_bool blocking_map, cl_map_flags map_flags,
			    const size_t *origin, const size_t *region,
			    size_t *image_row_pitch, size_t *image_slice_pitch,
			    cl_uint num_events_in_wait_list,
			    const cl_event *event_wait_list, cl_event *event,
			    cl_int *errcode_ret)
{
	if (errcode_ret)
		*errcode_ret = not_an_image(command_queue);
	return NULL;
}
