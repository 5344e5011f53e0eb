# SPDX-License-Identifier: GPL-2.0-only
#
# Top-level build. Host parts (library, tools, host tests) build here; the
# kernel module builds through Kbuild; QEMU and the VM run through scripts/.
#
#   make               library, tools, host tests, VM test binaries
#   make module        driver/vmgpu.ko against the VM's kernel headers
#   make qemu          QEMU with the vmgpu device (cached, incremental)
#   make check         every test, host and VM; ends with "N passed, N failed"
#   make demo          the main job: a 4-GPU VM running the demo
#   make bench         benchmarks (see Documentation/benchmarks.rst)
#   make stress        the long concurrency and lifecycle stress run, 30 min
#                      (Documentation/robustness.rst; scripts/stress)
#   make fuzz          every fuzz target of the device model for
#                      FUZZ_SECONDS (default 3600) each (scripts/fuzz;
#                      Documentation/robustness.rst); make fuzzers builds
#                      them, make fuzz-seeds rewrites their seed corpora
#   make install       the library, its headers and vmgpu.pc, the runtime
#                      (libvmgpurt.a, libvgcore.a, vmgpu/runtime.h,
#                      vmgpurt.pc), the tools and the man pages under
#                      PREFIX (default /usr/local);
#                      DESTDIR, BINDIR, LIBDIR, INCLUDEDIR, MANDIR and
#                      PKGCONFIGDIR as usual (Documentation/first-program.rst)
#   make uninstall     remove what make install put there

CC       ?= gcc
O        := build
CACHE    ?= $(or $(VMGPU_CACHE),$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/vmgpu)
KSELFTEST := $(CACHE)/linux-source-6.1/tools/testing/selftests

WARN     := -Wall -Wextra -Wno-unused-parameter -Wshadow -Wstrict-prototypes \
	    -Wmissing-prototypes -Wvla -Werror=implicit-function-declaration
# The device model's headers as "core/NAME.h": no search path into core/.
CPPFLAGS := -Iuapi -Iuapi/drm -Ilibshim/include -Ilibshim -Iqemu-device -D_GNU_SOURCE
CFLAGS   ?= -O2 -g
CFLAGS   += -std=gnu11 $(WARN) -fPIC -pthread
SANFLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
	    -fno-sanitize-recover=undefined
DRM_CFLAGS := $(shell pkg-config --cflags libdrm 2>/dev/null)
DRM_LIBS   := $(shell pkg-config --libs libdrm 2>/dev/null)

# The OpenCL C compiler (libshim/compiler, C++) is built against Debian's
# clang and LLVM 16 (scripts/deps installs them) and uses them as shared
# libraries: libvmgpu.so, vmgpu-cc and test_compiler link them; the
# static tools do not use the compiler and stay free of LLVM.
LLVM_CONFIG ?= llvm-config-16
LLVM_CXXFLAGS := $(shell $(LLVM_CONFIG) --cxxflags 2>/dev/null)
LLVM_LIBDIR   := $(shell $(LLVM_CONFIG) --libdir 2>/dev/null)
CLANG_RESOURCE_DIR := $(shell clang-16 -print-resource-dir 2>/dev/null)
CC_LIBS  := -L$(LLVM_LIBDIR) -lclang-cpp -lLLVM-16
CXXWARN  := -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers
CCXXFLAGS := $(LLVM_CXXFLAGS) $(CXXWARN) -fPIC -pthread \
	     -DVMGPU_CLANG_RESOURCE_DIR='"$(CLANG_RESOURCE_DIR)"'

CORE_SRC  := $(sort $(wildcard qemu-device/core/*.c))
# The library: a small core in libshim/, one subfolder per subsystem;
# the runtime (libshim/runtime) is its own library, as its CPU device
# links the device model's interpreter (libvgcore). Licenses: LICENSES/.
SHIM_SRC  := $(sort $(wildcard libshim/*.c) \
	       $(filter-out libshim/runtime/% libshim/opencl/%, \
			    $(wildcard libshim/*/*.c)))
RT_SRC    := $(sort $(wildcard libshim/runtime/*.c))
COMP_SRC  := $(sort $(wildcard libshim/compiler/*.cpp))
TOOL_SRC  := $(sort $(wildcard tools/*.c))
# vmgpu-stress is several files, in a folder of its own.
STRESS_SRC := $(sort $(wildcard tools/vmgpu-stress/*.c))
HTEST_SRC := $(sort $(wildcard selftests/host/test_*.c))
HTEST_LIB := $(filter-out $(HTEST_SRC),$(sort $(wildcard selftests/host/*.c)))
# vmgpu_compile and vmgpu_runtime run the compiler in the guest: linked
# dynamically (not in vm-tests/, whose static binaries scripts/check runs
# in every VM).
VTEST_DYN := selftests/vm/vmgpu_compile.c selftests/vm/vmgpu_runtime.c
VTEST_SRC := $(filter-out $(VTEST_DYN),$(sort $(wildcard selftests/vm/*.c)))
BENCH_SRC := $(sort $(wildcard scripts/bench/*.c))

# The kselftest harness is not written for -Wmissing-prototypes/-Wsign-compare.
TEST_WARN := -Wno-missing-prototypes -Wno-sign-compare

# Release objects (the library users link, the tools, the VM binaries).
CORE_OBJ  := $(CORE_SRC:%.c=$(O)/rel/%.o)
SHIM_OBJ  := $(SHIM_SRC:%.c=$(O)/rel/%.o)
COMP_OBJ  := $(COMP_SRC:%.cpp=$(O)/rel/%.o)
COMP_AOBJ := $(COMP_SRC:%.cpp=$(O)/asan/%.o)
# Sanitized objects for host tests.
CORE_AOBJ := $(CORE_SRC:%.c=$(O)/asan/%.o)
SHIM_AOBJ := $(SHIM_SRC:%.c=$(O)/asan/%.o)
HLIB_AOBJ := $(HTEST_LIB:%.c=$(O)/asan/%.o)
RT_OBJ    := $(RT_SRC:%.c=$(O)/rel/%.o)
RT_AOBJ   := $(RT_SRC:%.c=$(O)/asan/%.o)

# The version's one definition is in vmgpu.h.
vmgpu_version = $(shell sed -n 's/^.define VMGPU_VERSION_$(1)[[:space:]]*\([0-9][0-9]*\)$$/\1/p' libshim/include/vmgpu.h)
VERSION_MAJOR := $(call vmgpu_version,MAJOR)
VERSION       := $(VERSION_MAJOR).$(call vmgpu_version,MINOR).$(call vmgpu_version,PATCH)

LIBVMGPU_A  := $(O)/libvmgpu.a
# The real file, its SONAME and the link-time name: the last two are
# symbolic links, here as where it is installed.
LIBVMGPU_SONAME := libvmgpu.so.$(VERSION_MAJOR)
LIBVMGPU_SO := $(O)/libvmgpu.so.$(VERSION)
LIBCORE_A   := $(O)/libvgcore.a
LIBRT_A     := $(O)/libvmgpurt.a
TOOLS       := $(TOOL_SRC:tools/%.c=$(O)/tools/%) $(O)/tools/vmgpu-stress
HTESTS      := $(HTEST_SRC:selftests/host/%.c=$(O)/host-tests/%)
VTESTS      := $(VTEST_SRC:selftests/vm/%.c=$(O)/vm-tests/%)
VTESTS_DYN  := $(VTEST_DYN:selftests/vm/%.c=$(O)/vm-tests-dynamic/%)
BENCHES     := $(BENCH_SRC:scripts/bench/%.c=$(O)/bench/%)

# Fuzz targets of the device model (selftests/fuzz): clang's libFuzzer
# with ASan and UBSan, over the core, the host tests' fake machine and the
# library (the assembler, for the engine's kernels).
FUZZ_CC    ?= clang-16
FUZZ_CXX   ?= clang++-16
FUZZ_FLAGS := -O1 -g -fno-omit-frame-pointer -fno-sanitize-recover=undefined
FUZZ_SRC   := $(sort $(wildcard selftests/fuzz/fuzz_*.c))
FUZZERS    := $(FUZZ_SRC:selftests/fuzz/%.c=$(O)/fuzz/%)
FUZZ_LOBJ  := $(patsubst %.c,$(O)/fuzzobj/%.o,$(CORE_SRC) $(SHIM_SRC) \
		selftests/host/testhost.c selftests/fuzz/fuzzdev.c)

.PHONY: opencl all host module qemu check check-host check-vm demo bench clean \
	checkpatch vm-tests tools stress install uninstall fuzz fuzzers \
	fuzz-seeds fuzz-coverage conformance
all: host vm-tests fuzzers
host: $(LIBVMGPU_A) $(LIBVMGPU_SO) $(LIBCORE_A) $(LIBRT_A) opencl tools \
	$(HTESTS) \
	$(BENCHES)
tools: $(TOOLS)
vm-tests: $(VTESTS) $(VTESTS_DYN) tools
benches: $(BENCHES)

$(O)/rel/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(DRM_CFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(O)/asan/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(DRM_CFLAGS) -I$(KSELFTEST) -Iselftests/host \
		-std=gnu11 $(WARN) $(EXTRA_WARN) -pthread $(SANFLAGS) -MMD -MP \
		-c $< -o $@

$(O)/rel/%.o: %.cpp
	@mkdir -p $(@D)
	$(CXX) $(CPPFLAGS) $(CCXXFLAGS) -O2 -g -MMD -MP -c $< -o $@

$(O)/asan/%.o: %.cpp
	@mkdir -p $(@D)
	$(CXX) $(CPPFLAGS) $(CCXXFLAGS) $(SANFLAGS) -MMD -MP -c $< -o $@

$(O)/asan/selftests/%.o: EXTRA_WARN := $(TEST_WARN) \
	-DVMGPU_GOLDEN_DIR='"$(CURDIR)/selftests/host/golden"'

$(LIBVMGPU_A): $(SHIM_OBJ) $(COMP_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

# Only the vmgpu_* functions of vmgpu.h are the ABI (libshim/libvmgpu.map).
$(LIBVMGPU_SO): $(SHIM_OBJ) $(COMP_OBJ) libshim/libvmgpu.map
	$(CXX) -shared -Wl,-soname,$(LIBVMGPU_SONAME) \
		-Wl,--version-script=libshim/libvmgpu.map -o $@ $(SHIM_OBJ) \
		$(COMP_OBJ) $(DRM_LIBS) $(CC_LIBS) -pthread
	ln -sfn $(@F) $(O)/$(LIBVMGPU_SONAME)
	ln -sfn $(LIBVMGPU_SONAME) $(O)/libvmgpu.so

# The OpenCL ICD (libshim/opencl, Documentation/opencl.rst): a library of
# its own over the runtime, loaded by the ICD loader through an .icd file;
# its dispatch table is generated from the system's CL/cl_icd.h.
CL_ICD_H   ?= /usr/include/CL/cl_icd.h
OCL_SRC    := $(sort $(wildcard libshim/opencl/*.c))
OCL_GEN    := $(O)/gen/opencl
OCL_OBJ    := $(OCL_SRC:%.c=$(O)/rel/%.o) $(O)/rel/gen/opencl_dispatch.o
OCL_SONAME := libvmgpu-opencl.so.1
OCL_SO     := $(O)/$(OCL_SONAME)
OCL_ICD    := $(O)/opencl/vendors/vmgpu.icd

$(OCL_GEN)/opencl_dispatch.h $(OCL_GEN)/opencl_dispatch.c &: \
		scripts/opencl-icd-gen $(CL_ICD_H)
	@mkdir -p $(OCL_GEN)
	scripts/opencl-icd-gen $(CL_ICD_H) $(OCL_GEN)/opencl_dispatch.h \
		$(OCL_GEN)/opencl_dispatch.c

$(OCL_SRC:%.c=$(O)/rel/%.o): CPPFLAGS += -I$(OCL_GEN)
$(OCL_SRC:%.c=$(O)/rel/%.o): $(OCL_GEN)/opencl_dispatch.h

$(O)/rel/gen/opencl_dispatch.o: $(OCL_GEN)/opencl_dispatch.c \
		$(OCL_GEN)/opencl_dispatch.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -I$(OCL_GEN) $(CFLAGS) -c $< -o $@

$(OCL_SO): $(OCL_OBJ) libshim/opencl/libvmgpu-opencl.map $(LIBRT_A) \
		$(LIBCORE_A) $(LIBVMGPU_A)
	$(CXX) -shared -Wl,-soname,$(OCL_SONAME) \
		-Wl,--version-script=libshim/opencl/libvmgpu-opencl.map \
		-o $@ $(OCL_OBJ) $(LIBRT_A) $(LIBCORE_A) $(LIBVMGPU_A) \
		$(DRM_LIBS) $(CC_LIBS) -pthread -lm

# Its host tests (test_opencl*) go through Debian's ICD loader, as
# programs do, and share only the harness.
OCL_HTESTS := $(filter $(O)/host-tests/test_opencl%,$(HTESTS))
$(OCL_HTESTS): $(O)/host-tests/%: $(O)/asan/selftests/host/%.o | $(OCL_ICD)
	@mkdir -p $(@D)
	$(CC) $(SANFLAGS) -o $@ $^ -lOpenCL -pthread -lm

# For the tests: OCL_ICD_VENDORS=$(O)/opencl/vendors finds the build's ICD.
$(OCL_ICD): $(OCL_SO)
	@mkdir -p $(@D)
	echo $(abspath $(OCL_SO)) >$@

# The plain OpenCL example, for the VM (selftests/vm/opencl-run).
$(O)/opencl/opencl_saxpy: Documentation/examples/opencl_saxpy.c
	@mkdir -p $(@D)
	$(CC) -O2 -Wall -Wextra -o $@ $< $(shell pkg-config --cflags --libs OpenCL)

opencl: $(OCL_SO) $(OCL_ICD) $(O)/opencl/opencl_saxpy

$(LIBCORE_A): $(CORE_OBJ)
	rm -f $@ && ar rcs $@ $^

# The runtime (Documentation/runtime.rst): link it before libvgcore.a and
# libvmgpu.a.
$(LIBRT_A): $(RT_OBJ)
	rm -f $@ && ar rcs $@ $^

# Tools are linked statically so they run unchanged inside the VM's initramfs.
$(O)/tools/%: $(O)/rel/tools/%.o $(LIBVMGPU_A) $(LIBCORE_A)
	@mkdir -p $(@D)
	$(CC) -static -o $@ $^ $(DRM_LIBS) -pthread -lm

$(O)/tools/vmgpu-stress: $(STRESS_SRC:%.c=$(O)/rel/%.o) $(LIBVMGPU_A) \
		$(LIBCORE_A)
	@mkdir -p $(@D)
	$(CC) -static -o $@ $^ $(DRM_LIBS) -pthread -lm

# The compiler's tool uses clang and LLVM: linked dynamically.
$(O)/tools/vmgpu-cc: $(O)/rel/tools/vmgpu-cc.o $(LIBVMGPU_A) $(LIBCORE_A)
	@mkdir -p $(@D)
	$(CXX) -o $@ $^ $(DRM_LIBS) $(CC_LIBS) -pthread -lm

# Host benchmarks run the device core directly, optimised as in QEMU,
# some on the host tests' fake machine (selftests/host/testhost).
HLIB_ROBJ := $(HTEST_LIB:%.c=$(O)/rel/%.o)
$(O)/rel/scripts/bench/%.o: CPPFLAGS += -Iselftests/host
$(O)/bench/%: $(O)/rel/scripts/bench/%.o $(HLIB_ROBJ) $(LIBCORE_A) \
		$(LIBVMGPU_A)
	@mkdir -p $(@D)
	$(CC) -o $@ $^ $(DRM_LIBS) -pthread -lm

$(O)/bench/runtime: $(O)/rel/scripts/bench/runtime.o $(HLIB_ROBJ) $(LIBRT_A) \
		$(LIBCORE_A) $(LIBVMGPU_A)
	@mkdir -p $(@D)
	$(CC) -o $@ $^ $(DRM_LIBS) -pthread -lm

# The OpenCL benchmarks (opencl-*.c) are plain OpenCL programs: the ICD
# loader, and the build's ICD (OCL_ICD_VENDORS=$(O)/opencl/vendors).
$(O)/bench/opencl-%: $(O)/rel/scripts/bench/opencl-%.o | $(OCL_ICD)
	@mkdir -p $(@D)
	$(CC) -o $@ $^ -lOpenCL -pthread -lm

# The compiler's benchmark uses clang and LLVM: linked dynamically.
$(O)/bench/compiler: $(O)/rel/scripts/bench/compiler.o $(LIBCORE_A) \
		$(LIBVMGPU_A)
	@mkdir -p $(@D)
	$(CXX) -o $@ $^ $(DRM_LIBS) $(CC_LIBS) -pthread -lm

# The built-in math against libclc's (scripts/bench/libclc-vs runs it)
# builds with this compiler and runs the interpreter: linked as the
# compiler's benchmark.
$(O)/bench/libclc-vs-math: $(O)/rel/scripts/bench/libclc-vs-math.o \
		$(LIBCORE_A) $(LIBVMGPU_A)
	@mkdir -p $(@D)
	$(CXX) -o $@ $^ $(DRM_LIBS) $(CC_LIBS) -pthread -lm

# The compile-time benchmark loads the compiler it times (a libvmgpu.so,
# this build's or an older one's) with dlopen(): linked with nothing else.
$(O)/bench/compile-time: $(O)/rel/scripts/bench/compile-time.o | $(LIBVMGPU_SO)
	@mkdir -p $(@D)
	$(CC) -o $@ $^ -ldl

$(O)/host-tests/%: $(O)/asan/selftests/host/%.o $(HLIB_AOBJ) $(CORE_AOBJ) $(SHIM_AOBJ)
	@mkdir -p $(@D)
	$(CC) $(SANFLAGS) -o $@ $^ $(DRM_LIBS) -pthread -lm

# The compiler's tests (test_compiler*, test_kernlib) link the compiler.
CC_HTESTS := $(filter $(O)/host-tests/test_compiler% \
		$(O)/host-tests/test_kernlib,$(HTESTS))
$(CC_HTESTS): $(O)/host-tests/%: $(O)/asan/selftests/host/%.o \
		$(HLIB_AOBJ) $(CORE_AOBJ) $(SHIM_AOBJ) $(COMP_AOBJ)
	@mkdir -p $(@D)
	$(CXX) $(SANFLAGS) -o $@ $^ $(DRM_LIBS) $(CC_LIBS) -pthread -lm

# The runtime's tests: the runtime and the compiler (the corpus).
RT_HTESTS := $(filter $(O)/host-tests/test_runtime%,$(HTESTS))
$(RT_HTESTS): $(O)/host-tests/%: $(O)/asan/selftests/host/%.o $(HLIB_AOBJ) \
		 $(RT_AOBJ) $(CORE_AOBJ) $(SHIM_AOBJ) $(COMP_AOBJ)
	@mkdir -p $(@D)
	$(CXX) $(SANFLAGS) -o $@ $^ $(DRM_LIBS) $(CC_LIBS) -pthread -lm

$(O)/fuzzobj/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(CPPFLAGS) $(DRM_CFLAGS) -Iselftests/host -std=gnu11 \
		$(WARN) $(TEST_WARN) -pthread $(FUZZ_FLAGS) \
		-fsanitize=fuzzer-no-link,address,undefined -MMD -MP -c $< -o $@

$(O)/fuzz/fuzz_%: $(O)/fuzzobj/selftests/fuzz/fuzz_%.o $(FUZZ_LOBJ)
	@mkdir -p $(@D)
	$(FUZZ_CXX) -fsanitize=fuzzer,address,undefined -o $@ $^ $(DRM_LIBS) \
		-pthread -lm

$(O)/fuzz/fzseeds: $(O)/fuzzobj/selftests/fuzz/fzseeds.o $(FUZZ_LOBJ)
	@mkdir -p $(@D)
	$(FUZZ_CXX) -fsanitize=fuzzer-no-link,address,undefined -o $@ $^ \
		$(DRM_LIBS) -pthread -lm

# The same targets with clang's source coverage instead of sanitizers, to
# measure what a corpus reaches (scripts/fuzz --coverage).
FUZZ_COV_LOBJ := $(FUZZ_LOBJ:$(O)/fuzzobj/%=$(O)/fuzzcovobj/%)
$(O)/fuzzcovobj/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(CPPFLAGS) $(DRM_CFLAGS) -Iselftests/host -std=gnu11 \
		$(WARN) $(TEST_WARN) -pthread -O1 -g -fsanitize=fuzzer-no-link \
		-fprofile-instr-generate -fcoverage-mapping -MMD -MP -c $< -o $@

$(O)/fuzzcov/fuzz_%: $(O)/fuzzcovobj/selftests/fuzz/fuzz_%.o $(FUZZ_COV_LOBJ)
	@mkdir -p $(@D)
	$(FUZZ_CXX) -fsanitize=fuzzer -fprofile-instr-generate -o $@ $^ \
		$(DRM_LIBS) -pthread -lm

fuzzers: $(FUZZERS)
fuzz-coverage: $(FUZZ_SRC:selftests/fuzz/%.c=$(O)/fuzzcov/%)

fuzz-seeds: $(O)/fuzz/fzseeds
	rm -rf selftests/fuzz/corpus selftests/fuzz/*.dict
	$(O)/fuzz/fzseeds selftests/fuzz

fuzz: fuzzers
	scripts/fuzz --seconds $(or $(FUZZ_SECONDS),3600)

$(O)/vm-tests/%: selftests/vm/%.c $(LIBVMGPU_A)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(DRM_CFLAGS) -I$(KSELFTEST) $(CFLAGS) $(TEST_WARN) -static \
		-o $@ $< $(LIBVMGPU_A) $(DRM_LIBS) -pthread -lm

# The VM test of the compiler uses clang and LLVM: linked dynamically, as
# vmgpu-cc; it runs under scripts/vm-run --host-libs.
$(O)/rel/selftests/vm/%.o: CPPFLAGS += -I$(KSELFTEST)
$(O)/rel/selftests/vm/%.o: CFLAGS += $(TEST_WARN)
$(O)/vm-tests-dynamic/%: $(O)/rel/selftests/vm/%.o $(LIBVMGPU_A) $(LIBCORE_A)
	@mkdir -p $(@D)
	$(CXX) -o $@ $^ $(DRM_LIBS) $(CC_LIBS) -pthread -lm

# The runtime over the render nodes (libshim/runtime/drm.c), with online
# compilation: libvmgpurt.a before libvgcore.a and libvmgpu.a.
$(O)/vm-tests-dynamic/vmgpu_runtime: $(O)/rel/selftests/vm/vmgpu_runtime.o \
		$(LIBRT_A) $(LIBCORE_A) $(LIBVMGPU_A)
	@mkdir -p $(@D)
	$(CXX) -o $@ $^ $(DRM_LIBS) $(CC_LIBS) -pthread -lm

module:
	scripts/build-module

qemu:
	scripts/build-qemu

check:
	scripts/check

check-host: host
	scripts/check --host-only

check-vm:
	scripts/check --vm-only

# The Khronos CTS's whole table (scripts/cts, Documentation/conformance.rst):
# every suite on each device; hours. scripts/check runs its quick subset.
conformance: opencl
	VMGPU_BUILD=$(abspath $(O)) scripts/cts

demo:
	scripts/demo

bench:
	scripts/bench/run

stress:
	scripts/stress --long

checkpatch:
	scripts/checkpatch

# Installation. The public headers as in libshim/include: INCLUDEDIR/vmgpu.h
# and the subsystems' INCLUDEDIR/vmgpu/*.h; the uAPI headers in
# INCLUDEDIR/vmgpu, as the project includes them ("vmgpu_hw.h", not
# "drm/vmgpu_drm.h"); vmgpu.pc adds both directories to the search path.
PREFIX       ?= /usr/local
BINDIR       ?= $(PREFIX)/bin
LIBDIR       ?= $(PREFIX)/lib
INCLUDEDIR   ?= $(PREFIX)/include
MANDIR       ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
# Where ICD loaders look for .icd files (Khronos and ocl-icd alike).
ICDDIR       ?= /etc/OpenCL/vendors
INSTALL      ?= install

PUBLIC_H := libshim/include/vmgpu/split.h libshim/include/vmgpu/graph.h \
	    libshim/include/vmgpu/compiler.h \
	    uapi/vmgpu_hw.h uapi/vmgpu_isa.h uapi/vmgpu_cmd.h \
	    uapi/vmgpu_region.h \
	    uapi/drm/vmgpu_drm.h
MAN1     := $(TOOL_SRC:tools/%.c=man/%.1) man/vmgpu-stress.1
MAN7     := man/vmgpu.7
MAN3     := $(wildcard man/man3/*.3)

# A directory under PREFIX as vmgpu.pc writes it: relative to ${prefix}, so
# that pkg-config --define-prefix can move the tree.
pc_dir = $(patsubst $(PREFIX)/%,$${prefix}/%,$(1))

# The runtime: its library, the device model's core it
# runs CPU kernels with, its header (vmgpu/runtime.h) and vmgpurt.pc.
install: $(LIBVMGPU_A) $(LIBVMGPU_SO) $(LIBRT_A) $(LIBCORE_A) $(TOOLS) \
		$(OCL_SO) \
		$(MAN1) $(MAN7) $(MAN3) libshim/vmgpu.pc.in \
		libshim/runtime/vmgpurt.pc.in
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) \
		$(DESTDIR)$(INCLUDEDIR)/vmgpu $(DESTDIR)$(PKGCONFIGDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man7 \
		$(DESTDIR)$(MANDIR)/man3
	$(INSTALL) -m 644 $(LIBRT_A) $(LIBCORE_A) $(DESTDIR)$(LIBDIR)/
	$(INSTALL) -m 644 libshim/include/vmgpu/runtime.h \
		$(DESTDIR)$(INCLUDEDIR)/vmgpu/
	for pc in libshim/vmgpu.pc.in libshim/runtime/vmgpurt.pc.in; do \
		n=$${pc##*/}; \
		sed -e 's|@PREFIX@|$(PREFIX)|' \
			-e 's|@LIBDIR@|$(call pc_dir,$(LIBDIR))|' \
			-e 's|@INCLUDEDIR@|$(call pc_dir,$(INCLUDEDIR))|' \
			-e 's|@VERSION@|$(VERSION)|' \
			$$pc >$(DESTDIR)$(PKGCONFIGDIR)/$${n%.in} || exit 1; \
	done
	$(INSTALL) -m 644 $(LIBVMGPU_A) $(DESTDIR)$(LIBDIR)/
	$(INSTALL) -m 755 $(LIBVMGPU_SO) $(DESTDIR)$(LIBDIR)/
	ln -sfn $(notdir $(LIBVMGPU_SO)) $(DESTDIR)$(LIBDIR)/$(LIBVMGPU_SONAME)
	ln -sfn $(LIBVMGPU_SONAME) $(DESTDIR)$(LIBDIR)/libvmgpu.so
	$(INSTALL) -m 644 libshim/include/vmgpu.h $(DESTDIR)$(INCLUDEDIR)/
	$(INSTALL) -m 644 $(PUBLIC_H) $(DESTDIR)$(INCLUDEDIR)/vmgpu/
	$(INSTALL) -m 755 $(TOOLS) $(DESTDIR)$(BINDIR)/
	$(INSTALL) -d $(DESTDIR)$(ICDDIR)
	$(INSTALL) -m 755 $(OCL_SO) $(DESTDIR)$(LIBDIR)/
	echo $(LIBDIR)/$(OCL_SONAME) >$(DESTDIR)$(ICDDIR)/vmgpu.icd
	for f in $(MAN1) $(MAN7) $(MAN3); do \
		sed 's|@VERSION@|$(VERSION)|' $$f \
			>$(DESTDIR)$(MANDIR)/man$${f##*.}/$${f##*/} || exit 1; \
	done

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libvmgpu.a $(DESTDIR)$(LIBDIR)/libvmgpu.so \
		$(DESTDIR)$(LIBDIR)/$(LIBVMGPU_SONAME) \
		$(DESTDIR)$(LIBDIR)/$(notdir $(LIBVMGPU_SO)) \
		$(DESTDIR)$(PKGCONFIGDIR)/vmgpu.pc \
		$(DESTDIR)$(LIBDIR)/libvmgpurt.a $(DESTDIR)$(LIBDIR)/libvgcore.a \
		$(DESTDIR)$(PKGCONFIGDIR)/vmgpurt.pc \
		$(DESTDIR)$(INCLUDEDIR)/vmgpu.h \
		$(DESTDIR)$(LIBDIR)/$(OCL_SONAME) $(DESTDIR)$(ICDDIR)/vmgpu.icd \
		$(DESTDIR)$(INCLUDEDIR)/vmgpu/runtime.h \
		$(addprefix $(DESTDIR)$(INCLUDEDIR)/vmgpu/,$(notdir $(PUBLIC_H))) \
		$(addprefix $(DESTDIR)$(BINDIR)/,$(notdir $(TOOLS))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MAN1))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man7/,$(notdir $(MAN7))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man3/,$(notdir $(MAN3)))
	rmdir $(DESTDIR)$(INCLUDEDIR)/vmgpu 2>/dev/null || true

# Kbuild's products of the module build, without needing the kernel headers.
clean:
	rm -rf $(O)
	rm -f driver/*.o driver/*.ko driver/*.mod driver/*.mod.c \
		driver/.*.cmd driver/modules.order modules.order \
		Module.symvers .*.cmd
	rm -rf .tmp_versions

-include $(shell find $(O) -name '*.d' 2>/dev/null)
