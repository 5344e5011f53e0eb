// SPDX-License-Identifier: MIT
/*
 * libvmgpu-opencl: images and samplers, which no vmgpu device has
 * (CL_DEVICE_IMAGE_SUPPORT is false): the calls answer as OpenCL 1.2
 * says for such a device — no image format, CL_INVALID_OPERATION for an
 * image or a sampler, CL_INVALID_MEM_OBJECT where an image is wanted
 * (there is none) — after checking their context or queue as any call.
 */
#include "opencl_internal.h"

#define VCL_IMAGE_TYPES_OK(t) \
	((t) == CL_MEM_OBJECT_IMAGE2D || (t) == CL_MEM_OBJECT_IMAGE3D || \
	 (t) == CL_MEM_OBJECT_IMAGE2D_ARRAY || \
	 (t) == CL_MEM_OBJECT_IMAGE1D || (t) == CL_MEM_OBJECT_IMAGE1D_ARRAY || \
	 (t) == CL_MEM_OBJECT_IMAGE1D_BUFFER)

cl_int vcl_clGetSupportedImageFormats(cl_context context, cl_mem_flags flags,
				      cl_mem_object_type image_type,
				      cl_uint num_entries,
				      cl_image_format *image_formats,
				      cl_uint *num_image_formats)
{
	if (!vcl_obj_get(vcl_platform(NULL), context, VCL_CONTEXT, false))
		return CL_INVALID_CONTEXT;
	if (!VCL_IMAGE_TYPES_OK(image_type) || (!num_entries && image_formats))
		return CL_INVALID_VALUE;
	if (num_image_formats)
		*num_image_formats = 0;
	return CL_SUCCESS;
}

static void *no_image(cl_context context, cl_int *errcode_ret)
{
	if (errcode_ret)
		*errcode_ret = vcl_obj_get(vcl_platform(NULL), context,
					   VCL_CONTEXT, false) ?
			       CL_INVALID_OPERATION : CL_INVALID_CONTEXT;
	return NULL;
}

cl_mem vcl_clCreateImage(cl_context context, cl_mem_flags flags,
			 const cl_image_format *image_format,
			 const cl_image_desc *image_desc, void *host_ptr,
			 cl_int *errcode_ret)
{
	return no_image(context, errcode_ret);
}

cl_mem vcl_clCreateImage2D(cl_context context, cl_mem_flags flags,
			   const cl_image_format *image_format,
			   size_t image_width, size_t image_height,
			   size_t image_row_pitch, void *host_ptr,
			   cl_int *errcode_ret)
{
	return no_image(context, errcode_ret);
}

cl_mem vcl_clCreateImage3D(cl_context context, cl_mem_flags flags,
			   const cl_image_format *image_format,
			   size_t image_width, size_t image_height,
			   size_t image_depth, size_t image_row_pitch,
			   size_t image_slice_pitch, void *host_ptr,
			   cl_int *errcode_ret)
{
	return no_image(context, errcode_ret);
}

cl_sampler vcl_clCreateSampler(cl_context context, cl_bool normalized_coords,
			       cl_addressing_mode addressing_mode,
			       cl_filter_mode filter_mode, cl_int *errcode_ret)
{
	return no_image(context, errcode_ret);
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
