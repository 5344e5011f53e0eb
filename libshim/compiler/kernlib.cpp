// SPDX-License-Identifier: MIT
/*
 * Kernel libraries, online compilation and the kernel cache (SPEC P4,
 * vmgpu.h, Documentation/compiler.rst): a library holds OpenCL C source
 * and executables per ISA version; a build for a device's version uses
 * the executables of that version as they are, else compiles the source
 * (once: the result goes to an on-disk cache keyed by a SHA-256 of source,
 * options, compiler and version), else falls back to the newest older
 * executables. No global state: the cache directory and the counters
 * belong to a struct vmgpu_compiler, which several threads may share.
 */
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <set>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <llvm/Config/llvm-config.h>

#include "compiler.h"
#include "vmgpu/compiler.h"

using vmgpu_cc::Kernel;

namespace {

/* ---- SHA-256 (FIPS 180-4) ---- */

class Sha256 {
public:
	Sha256()
	{
		static const uint32_t init[8] = {
			0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
			0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
		};
		memcpy(h, init, sizeof(h));
	}

	void update(const void *data, size_t n)
	{
		const uint8_t *p = static_cast<const uint8_t *>(data);

		total += n;
		while (n) {
			size_t k = std::min(n, sizeof(buf) - used);

			memcpy(buf + used, p, k);
			used += k;
			p += k;
			n -= k;
			if (used == sizeof(buf)) {
				block(buf);
				used = 0;
			}
		}
	}

	/* A field: its length (8 bytes, little-endian), then its bytes. */
	void field(const std::string &s)
	{
		uint8_t len[8];
		uint64_t n = s.size();

		for (int i = 0; i < 8; i++)
			len[i] = uint8_t(n >> (8 * i));
		update(len, 8);
		update(s.data(), s.size());
	}

	std::string hex()
	{
		uint64_t bits = total * 8;
		uint8_t pad[72] = { 0x80 };
		size_t padn = (used < 56 ? 56 : 120) - used;
		static const char digits[] = "0123456789abcdef";
		std::string out;

		for (int i = 0; i < 8; i++)
			pad[padn + i] = uint8_t(bits >> (56 - 8 * i));
		update(pad, padn + 8);
		for (uint32_t w : h)
			for (int i = 28; i >= 0; i -= 4)
				out += digits[(w >> i) & 15];
		return out;
	}

private:
	uint32_t h[8];
	uint8_t buf[64];
	size_t used = 0;
	uint64_t total = 0;

	static uint32_t ror(uint32_t x, int n)
	{
		return (x >> n) | (x << (32 - n));
	}

	void block(const uint8_t *p)
	{
		static const uint32_t k[64] = {
			0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5,
			0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
			0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
			0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
			0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
			0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
			0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
			0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
			0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
			0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
			0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3,
			0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
			0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5,
			0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
			0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
			0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
		};
		uint32_t w[64], a[8];

		for (int i = 0; i < 16; i++)
			w[i] = uint32_t(p[4 * i]) << 24 |
			       uint32_t(p[4 * i + 1]) << 16 |
			       uint32_t(p[4 * i + 2]) << 8 | p[4 * i + 3];
		for (int i = 16; i < 64; i++) {
			uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^
				      (w[i - 15] >> 3);
			uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^
				      (w[i - 2] >> 10);

			w[i] = w[i - 16] + s0 + w[i - 7] + s1;
		}
		memcpy(a, h, sizeof(a));
		for (int i = 0; i < 64; i++) {
			uint32_t s1 = ror(a[4], 6) ^ ror(a[4], 11) ^
				      ror(a[4], 25);
			uint32_t ch = (a[4] & a[5]) ^ (~a[4] & a[6]);
			uint32_t t1 = a[7] + s1 + ch + k[i] + w[i];
			uint32_t s0 = ror(a[0], 2) ^ ror(a[0], 13) ^
				      ror(a[0], 22);
			uint32_t maj = (a[0] & a[1]) ^ (a[0] & a[2]) ^
				       (a[1] & a[2]);
			uint32_t t2 = s0 + maj;

			memmove(a + 1, a, 7 * sizeof(uint32_t));
			a[4] += t1;
			a[0] = t1 + t2;
		}
		for (int i = 0; i < 8; i++)
			h[i] += a[i];
	}
};

/* ---- the library file format (compiler.rst, "Kernel libraries") ---- */

const uint32_t KLIB_MAGIC = 0x424c4b56;		/* "VKLB" in file order */
const uint32_t KLIB_FORMAT = 1;
const uint32_t KLIB_HEADER_BYTES = 32;
const uint32_t KLIB_MAX_SOURCE = 16u << 20;
const uint32_t KLIB_MAX_OPTIONS = 4096;
const uint32_t KLIB_MAX_KERNELS = 1024;
const uint64_t KLIB_MAX_FILE = 256ull << 20;
const uint32_t KLIB_MAX_PRIVATE = 1u << 20;	/* bytes per thread */

void put32(std::vector<uint8_t> &out, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		out.push_back(uint8_t(v >> (8 * i)));
}

void pad8(std::vector<uint8_t> &out)
{
	while (out.size() % 8)
		out.push_back(0);
}

uint32_t get32(const uint8_t *p)
{
	return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 |
	       uint32_t(p[3]) << 24;
}

void set_err(char *err, size_t errlen, const std::string &msg)
{
	if (err && errlen)
		snprintf(err, errlen, "%s", msg.c_str());
}

/*
 * Is @image (@bytes) an executable a device of ISA version @isa can run,
 * with a signature? Its kernel name into @name, else false and @why.
 */
bool exec_valid(const void *image, size_t bytes, uint32_t isa,
		std::string &name, std::string &why)
{
	struct vmgpu_exec_header h;
	struct vmgpu_exec_sig sig;
	struct vmgpu_exec_param params[VMGPU_MAX_PARAMS];
	const char *w = "";

	if (!image || bytes < VMGPU_EXEC_HEADER_BYTES) {
		why = "executable too short";
		return false;
	}
	vmgpu_exec_header_read(&h, image);
	if (!vmgpu_exec_header_valid(&h) || vmgpu_exec_file_bytes(&h) != bytes) {
		why = "invalid executable header or size";
		return false;
	}
	if (h.isa_version > isa) {
		why = "an executable of ISA version " +
		      std::to_string(h.isa_version) + " for version " +
		      std::to_string(isa);
		return false;
	}
	for (uint32_t pc = 0; pc < h.code_insns; pc++) {
		const uint8_t *p = static_cast<const uint8_t *>(image) +
				   VMGPU_EXEC_HEADER_BYTES +
				   size_t(pc) * VMGPU_INSN_BYTES;
		uint64_t word = uint64_t(get32(p)) |
				uint64_t(get32(p + 4)) << 32;

		if (!vmgpu_insn_valid(word, h.isa_version, h.num_regs,
				      h.args_bytes)) {
			why = "invalid instruction at " + std::to_string(pc);
			return false;
		}
	}
	int r = vmgpu_exec_sig_read(&h, image, bytes, &sig, params, &w);
	if (r <= 0) {
		why = r ? std::string("bad signature: ") + w :
			  "executable without a signature";
		return false;
	}
	name = sig.name;
	return true;
}

} // namespace

struct vmgpu_kernlib {
	std::mutex mu;
	std::string name;
	bool has_source = false;
	std::string source, options;
	std::map<uint32_t, std::vector<Kernel>> sets;	/* by ISA version */
};

struct vmgpu_compiler {
	std::string dir;		/* "" when there is no cache */
	std::atomic<uint64_t> builds{0}, as_is{0}, compiles{0},
		compile_failures{0}, cache_hits{0}, cache_misses{0},
		cache_corrupt{0}, cache_stores{0}, cache_store_failures{0},
		fallbacks{0}, failures{0};
};

namespace {

/* Add @k to @lib's set for @isa after validating it (lib->mu held). */
int add_kernel(vmgpu_kernlib *lib, uint32_t isa, Kernel &&k, char *err,
	       size_t errlen)
{
	std::string name, why;

	if (isa < VMGPU_ISA_VERSION_MIN || isa > VMGPU_ISA_VERSION) {
		set_err(err, errlen, "ISA version " + std::to_string(isa) +
			" is not " + std::to_string(VMGPU_ISA_VERSION_MIN) +
			".." + std::to_string(VMGPU_ISA_VERSION));
		return -EINVAL;
	}
	if (!exec_valid(k.image.data(), k.image.size(), isa, name, why)) {
		set_err(err, errlen, why);
		return -EINVAL;
	}
	if (k.private_bytes > KLIB_MAX_PRIVATE || k.private_bytes % 4) {
		set_err(err, errlen, "private bytes " +
			std::to_string(k.private_bytes) + " of kernel '" +
			name + "' not a multiple of 4 up to 1 MiB");
		return -EINVAL;
	}
	std::vector<Kernel> &set = lib->sets[isa];
	for (const Kernel &o : set)
		if (o.name == name) {
			set_err(err, errlen, "kernel '" + name +
				"' twice for ISA version " +
				std::to_string(isa));
			return -EEXIST;
		}
	if (set.size() >= KLIB_MAX_KERNELS) {
		set_err(err, errlen, "too many kernels");
		return -EINVAL;
	}
	k.name = name;
	set.push_back(std::move(k));
	return 0;
}

std::vector<uint8_t> serialise(const vmgpu_kernlib *lib)
{
	std::vector<uint8_t> out;
	size_t total_at;

	put32(out, KLIB_MAGIC);
	put32(out, KLIB_FORMAT);
	put32(out, lib->has_source ? 1 : 0);
	put32(out, uint32_t(lib->source.size()));
	put32(out, uint32_t(lib->options.size()));
	put32(out, uint32_t(lib->sets.size()));
	total_at = out.size();
	put32(out, 0);		/* total bytes, low and high */
	put32(out, 0);
	out.insert(out.end(), lib->source.begin(), lib->source.end());
	out.insert(out.end(), lib->options.begin(), lib->options.end());
	pad8(out);
	for (const auto &s : lib->sets) {
		put32(out, s.first);
		put32(out, uint32_t(s.second.size()));
		for (const Kernel &k : s.second) {
			put32(out, k.private_bytes);
			put32(out, uint32_t(k.image.size()));
			out.insert(out.end(), k.image.begin(), k.image.end());
			pad8(out);
		}
	}
	uint64_t n = out.size();
	for (int i = 0; i < 8; i++)
		out[total_at + i] = uint8_t(n >> (8 * i));
	return out;
}

bool text_ok(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!p[i])
			return false;
	return true;
}

/* Parse and validate a library file into @lib (fresh). */
int parse(vmgpu_kernlib *lib, const void *data, size_t bytes, char *err,
	  size_t errlen)
{
	const uint8_t *p = static_cast<const uint8_t *>(data);
	uint32_t flags, src_n, opt_n, nsets, prev = 0;
	uint64_t total, pos;

	if (!data || bytes < KLIB_HEADER_BYTES) {
		set_err(err, errlen, "truncated: no header");
		return -EINVAL;
	}
	if (get32(p) != KLIB_MAGIC) {
		set_err(err, errlen, "not a kernel library (bad magic)");
		return -EINVAL;
	}
	if (get32(p + 4) != KLIB_FORMAT) {
		set_err(err, errlen, "kernel library format " +
			std::to_string(get32(p + 4)) + ", expected " +
			std::to_string(KLIB_FORMAT));
		return -EINVAL;
	}
	flags = get32(p + 8);
	src_n = get32(p + 12);
	opt_n = get32(p + 16);
	nsets = get32(p + 20);
	total = uint64_t(get32(p + 24)) | uint64_t(get32(p + 28)) << 32;
	if (total != bytes || total > KLIB_MAX_FILE) {
		set_err(err, errlen, "size " + std::to_string(bytes) +
			" is not the " + std::to_string(total) +
			" bytes the header says (truncated?)");
		return -EINVAL;
	}
	if (flags > 1 || src_n > KLIB_MAX_SOURCE || opt_n > KLIB_MAX_OPTIONS ||
	    (!flags && (src_n || opt_n)) ||
	    nsets > VMGPU_ISA_VERSION - VMGPU_ISA_VERSION_MIN + 1) {
		set_err(err, errlen, "bad header fields");
		return -EINVAL;
	}
	pos = KLIB_HEADER_BYTES;
	if (pos + src_n + opt_n > bytes || !text_ok(p + pos, src_n + opt_n)) {
		set_err(err, errlen, "bad source or options");
		return -EINVAL;
	}
	lib->has_source = flags & 1;
	lib->source.assign(reinterpret_cast<const char *>(p + pos), src_n);
	lib->options.assign(reinterpret_cast<const char *>(p + pos + src_n),
			    opt_n);
	pos = (pos + src_n + opt_n + 7) / 8 * 8;
	for (uint32_t s = 0; s < nsets; s++) {
		uint32_t isa, nk;

		if (pos + 8 > bytes) {
			set_err(err, errlen, "truncated in the executables");
			return -EINVAL;
		}
		isa = get32(p + pos);
		nk = get32(p + pos + 4);
		pos += 8;
		if (isa <= prev || !nk || nk > KLIB_MAX_KERNELS) {
			set_err(err, errlen, "bad executable set header");
			return -EINVAL;
		}
		prev = isa;
		for (uint32_t i = 0; i < nk; i++) {
			uint32_t priv, n;
			int r;

			if (pos + 8 > bytes) {
				set_err(err, errlen,
					"truncated in the executables");
				return -EINVAL;
			}
			priv = get32(p + pos);
			n = get32(p + pos + 4);
			pos += 8;
			if (n > bytes - pos) {
				set_err(err, errlen,
					"truncated in the executables");
				return -EINVAL;
			}
			Kernel k;
			k.private_bytes = priv;
			k.image.assign(p + pos, p + pos + n);
			r = add_kernel(lib, isa, std::move(k), err, errlen);
			if (r)
				return -EINVAL;
			pos = (pos + n + 7) / 8 * 8;
		}
	}
	if (pos != bytes) {
		set_err(err, errlen, "trailing bytes");
		return -EINVAL;
	}
	return 0;
}

int read_whole_file(const char *path, std::vector<uint8_t> &out)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int r = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		r = -errno;
	} else if (!S_ISREG(st.st_mode) || uint64_t(st.st_size) > KLIB_MAX_FILE) {
		r = -EINVAL;
	} else {
		out.resize(size_t(st.st_size));
		size_t got = 0;

		while (got < out.size()) {
			ssize_t n = read(fd, out.data() + got, out.size() - got);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				r = n ? -errno : -EINVAL;
				break;
			}
			got += size_t(n);
		}
	}
	close(fd);
	return r;
}

/* mkdir -p with mode 0700. */
int make_dirs(const std::string &dir)
{
	for (size_t i = 1; i <= dir.size(); i++) {
		if (i < dir.size() && dir[i] != '/')
			continue;
		std::string d = dir.substr(0, i);

		if (mkdir(d.c_str(), 0700) && errno != EEXIST)
			return -errno;
	}
	return 0;
}

/* Write @data to @path atomically: a temporary file, then rename. */
int write_atomic(const std::string &path, const std::vector<uint8_t> &data)
{
	size_t slash = path.rfind('/');
	std::string tmpl = (slash == std::string::npos ? std::string() :
			    path.substr(0, slash + 1)) + ".vmgpu-tmp-XXXXXX";
	std::vector<char> name(tmpl.begin(), tmpl.end());
	size_t done = 0;
	int fd, r = 0;

	name.push_back('\0');
	fd = mkostemp(name.data(), O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (done < data.size()) {
		ssize_t n = write(fd, data.data() + done, data.size() - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n ? -errno : -EIO;
			break;
		}
		done += size_t(n);
	}
	if (!r && fchmod(fd, 0644))
		r = -errno;
	if (close(fd) && !r)
		r = -errno;
	if (!r && rename(name.data(), path.c_str()))
		r = -errno;
	if (r)
		unlink(name.data());
	return r;
}

/* The compiler's identity (vmgpu_compiler_id()), made once. */
std::string make_compiler_id()
{
	Sha256 sh;

	sh.field(vmgpu_cc::clclib_source);
	return std::string("clang/LLVM " LLVM_VERSION_STRING ", "
			   VMGPU_CC_BACKEND_VERSION ", library ") +
	       sh.hex().substr(0, 16);
}

std::string cache_key(const vmgpu_kernlib *lib, const std::string &options,
		      uint32_t isa)
{
	Sha256 sh;

	sh.field("vmgpu kernel cache 1");
	sh.field(vmgpu_compiler_id());
	sh.field(vmgpu_cc::clclib_source);
	sh.field(vmgpu_cc::clclib_math_source);
	sh.field(std::to_string(isa));
	sh.field(options);
	sh.field(lib->source);
	return sh.hex();
}

/* The cache entry for @key if valid: the kernels for @isa. */
bool cache_read(vmgpu_compiler *cc, const std::string &key, uint32_t isa,
		std::vector<Kernel> &out)
{
	std::vector<uint8_t> data;
	vmgpu_kernlib entry;
	std::string path = cc->dir + "/" + key + ".vkl";
	int r = read_whole_file(path.c_str(), data);

	if (r == -ENOENT)
		return false;
	if (!r)
		r = parse(&entry, data.data(), data.size(), nullptr, 0);
	/* an entry is a library without source with one set, for @isa */
	if (r || entry.has_source || entry.sets.size() != 1 ||
	    entry.sets.begin()->first != isa) {
		cc->cache_corrupt++;
		return false;
	}
	out = std::move(entry.sets.begin()->second);
	return true;
}

void cache_store(vmgpu_compiler *cc, const std::string &key, uint32_t isa,
		 const std::vector<Kernel> &kernels)
{
	vmgpu_kernlib entry;

	entry.sets[isa] = kernels;
	if (make_dirs(cc->dir) ||
	    write_atomic(cc->dir + "/" + key + ".vkl", serialise(&entry)))
		cc->cache_store_failures++;
	else
		cc->cache_stores++;
}

char *dup_str(const std::string &s)
{
	char *p = static_cast<char *>(malloc(s.size() + 1));

	if (p)
		memcpy(p, s.c_str(), s.size() + 1);
	return p;
}

std::string version_list(const vmgpu_kernlib *lib)
{
	std::string s;

	for (const auto &set : lib->sets)
		s += (s.empty() ? "" : ", ") + std::to_string(set.first);
	return s.empty() ? "none" : s;
}

int build(vmgpu_compiler *cc, vmgpu_kernlib *lib, uint32_t isa,
	  const char *options, vmgpu_program *prog, std::string &log)
{
	std::unique_lock<std::mutex> lock(lib->mu);
	const std::string &lname = lib->name;
	auto exact = lib->sets.find(isa);

	prog->isa = isa;
	/* 1. executables of the device's version, as they are */
	if (exact != lib->sets.end()) {
		prog->kernels = exact->second;
		prog->origin = VMGPU_PROGRAM_AS_IS;
		cc->as_is++;
		log += lname + ": note: executables for ISA version " +
		       std::to_string(isa) + " used as they are\n";
		return 0;
	}
	/* 2. the source, compiled once for this version */
	if (lib->has_source) {
		std::string opts = lib->options;
		std::string key;
		std::vector<Kernel> cached;

		if (options && *options)
			opts += std::string(opts.empty() ? "" : " ") + options;
		key = cache_key(lib, opts, isa);
		if (!cc->dir.empty() && cache_read(cc, key, isa, cached)) {
			cc->cache_hits++;
			prog->kernels = std::move(cached);
			prog->origin = VMGPU_PROGRAM_CACHED;
			log += lname + ": note: ISA version " +
			       std::to_string(isa) +
			       " executables from the kernel cache (" + key +
			       ")\n";
			return 0;
		}
		if (!cc->dir.empty())
			cc->cache_misses++;
		std::string source = lib->source;
		lock.unlock();	/* compiling takes long; the copy suffices */
		vmgpu_program *built = nullptr;
		char *blog = nullptr;
		std::string full = opts + " -vmgpu-isa=" + std::to_string(isa);
		int r = vmgpu_program_build(source.c_str(), full.c_str(),
					    &built, &blog);

		if (blog)
			log += blog;
		free(blog);
		if (r == -ENOMEM)
			return r;
		if (!r) {
			cc->compiles++;
			prog->kernels = std::move(built->kernels);
			prog->origin = VMGPU_PROGRAM_COMPILED;
			vmgpu_program_destroy(built);
			if (!cc->dir.empty())
				cache_store(cc, key, isa, prog->kernels);
			log += lname + ": note: compiled for ISA version " +
			       std::to_string(isa) + "\n";
			return 0;
		}
		cc->compile_failures++;
		log += lname + ": note: the source does not compile for ISA "
		       "version " + std::to_string(isa) + "\n";
		lock.lock();
	}
	/* 3. the newest older executables */
	auto older = lib->sets.lower_bound(isa);
	if (older != lib->sets.begin()) {
		--older;
		prog->kernels = older->second;
		prog->origin = VMGPU_PROGRAM_FALLBACK;
		cc->fallbacks++;
		log += lname + ": note: using the executables for ISA version " +
		       std::to_string(older->first) + " on a device of version " +
		       std::to_string(isa) + "\n";
		return 0;
	}
	/* 4. nothing usable */
	cc->failures++;
	log += lname + ": error: no executable for ISA version " +
	       std::to_string(isa) + " (the library has executables for: " +
	       version_list(lib) + ") and " +
	       (lib->has_source ? "its source does not compile for it" :
				  "no source to compile") + "\n";
	return -ENOEXEC;
}

/* "/a/b//" -> "/a/b"; "/" stays "/". */
std::string trim_slashes(const std::string &d)
{
	std::string s = d;

	while (s.size() > 1 && s.back() == '/')
		s.pop_back();
	return s;
}

/* A directory to append "/name" to: "/a/" -> "/a", "/" -> "". */
std::string parent_dir(const char *d)
{
	std::string s = trim_slashes(d);

	return s == "/" ? "" : s;
}

} // namespace

extern "C" {

int vmgpu_compiler_create(const char *cache_dir, uint32_t flags,
			  struct vmgpu_compiler **out)
{
	const char *env;

	if (!out)
		return -EINVAL;
	*out = nullptr;
	if (flags & ~VMGPU_COMPILER_NO_CACHE)
		return -EINVAL;
	if (cache_dir && cache_dir[0] != '/')
		return -EINVAL;
	vmgpu_compiler *cc = new (std::nothrow) vmgpu_compiler;
	if (!cc)
		return -ENOMEM;
	if (flags & VMGPU_COMPILER_NO_CACHE)
		;
	else if (cache_dir)
		cc->dir = cache_dir;
	else if ((env = getenv("VMGPU_KERNEL_CACHE")) && env[0] == '/')
		cc->dir = env;
	else if ((env = getenv("XDG_CACHE_HOME")) && env[0] == '/')
		cc->dir = parent_dir(env) + "/vmgpu/kernels";
	else if ((env = getenv("HOME")) && env[0] == '/')
		cc->dir = parent_dir(env) + "/.cache/vmgpu/kernels";
	if (!cc->dir.empty())
		cc->dir = trim_slashes(cc->dir);
	*out = cc;
	return 0;
}

void vmgpu_compiler_destroy(struct vmgpu_compiler *cc)
{
	delete cc;
}

const char *vmgpu_compiler_id(void)
{
	static const std::string id = make_compiler_id();	/* thread-safe */

	return id.c_str();
}

const char *vmgpu_compiler_cache_dir(const struct vmgpu_compiler *cc)
{
	return cc ? cc->dir.c_str() : "";
}

int vmgpu_compiler_get_stats(struct vmgpu_compiler *cc,
			     struct vmgpu_compiler_stats *st)
{
	if (!cc || !st)
		return -EINVAL;
	st->builds = cc->builds;
	st->as_is = cc->as_is;
	st->compiles = cc->compiles;
	st->compile_failures = cc->compile_failures;
	st->cache_hits = cc->cache_hits;
	st->cache_misses = cc->cache_misses;
	st->cache_corrupt = cc->cache_corrupt;
	st->cache_stores = cc->cache_stores;
	st->cache_store_failures = cc->cache_store_failures;
	st->fallbacks = cc->fallbacks;
	st->failures = cc->failures;
	return 0;
}

int vmgpu_kernlib_create(const char *name, const char *source,
			 const char *options, struct vmgpu_kernlib **out)
{
	if (!out)
		return -EINVAL;
	*out = nullptr;
	if ((source && strlen(source) > KLIB_MAX_SOURCE) ||
	    (options && strlen(options) > KLIB_MAX_OPTIONS))
		return -EINVAL;
	vmgpu_kernlib *lib = new (std::nothrow) vmgpu_kernlib;
	if (!lib)
		return -ENOMEM;
	lib->name = name && *name ? name : "kernels";
	lib->has_source = source != nullptr;
	lib->source = source ? source : "";
	lib->options = options ? options : "";
	*out = lib;
	return 0;
}

void vmgpu_kernlib_destroy(struct vmgpu_kernlib *lib)
{
	delete lib;
}

int vmgpu_kernlib_add_executable(struct vmgpu_kernlib *lib,
				 uint32_t isa_version, const void *image,
				 size_t bytes, uint32_t private_bytes,
				 char *err, size_t errlen)
{
	if (!lib || !image) {
		set_err(err, errlen, "no library or no image");
		return -EINVAL;
	}
	if (bytes > KLIB_MAX_FILE) {
		set_err(err, errlen, "executable too large");
		return -EINVAL;
	}
	Kernel k;
	const uint8_t *p = static_cast<const uint8_t *>(image);
	k.image.assign(p, p + bytes);
	k.private_bytes = private_bytes;
	std::lock_guard<std::mutex> lock(lib->mu);
	return add_kernel(lib, isa_version, std::move(k), err, errlen);
}

int vmgpu_kernlib_add_program(struct vmgpu_kernlib *lib,
			      const struct vmgpu_program *prog, char *err,
			      size_t errlen)
{
	if (!lib || !prog) {
		set_err(err, errlen, "no library or no program");
		return -EINVAL;
	}
	std::lock_guard<std::mutex> lock(lib->mu);
	/* all or nothing */
	std::map<uint32_t, std::vector<Kernel>> saved = lib->sets;
	for (const Kernel &k : prog->kernels) {
		Kernel copy = k;
		int r = add_kernel(lib, prog->isa, std::move(copy), err,
				   errlen);

		if (r) {
			lib->sets = std::move(saved);
			return r;
		}
	}
	return 0;
}

int vmgpu_kernlib_isa_versions(struct vmgpu_kernlib *lib)
{
	int mask = 0;

	if (!lib)
		return -EINVAL;
	std::lock_guard<std::mutex> lock(lib->mu);
	for (const auto &s : lib->sets)
		mask |= 1 << s.first;
	return mask;
}

int vmgpu_kernlib_write(struct vmgpu_kernlib *lib, void **data,
			size_t *bytes)
{
	if (!lib || !data || !bytes)
		return -EINVAL;
	std::lock_guard<std::mutex> lock(lib->mu);
	std::vector<uint8_t> v = serialise(lib);
	*data = malloc(v.size());
	if (!*data)
		return -ENOMEM;
	memcpy(*data, v.data(), v.size());
	*bytes = v.size();
	return 0;
}

int vmgpu_kernlib_write_file(struct vmgpu_kernlib *lib, const char *path)
{
	if (!lib || !path || !*path)
		return -EINVAL;
	std::vector<uint8_t> v;
	{
		std::lock_guard<std::mutex> lock(lib->mu);
		v = serialise(lib);
	}
	return write_atomic(path, v);
}

int vmgpu_kernlib_read(const void *data, size_t bytes, const char *name,
		       struct vmgpu_kernlib **out, char *err, size_t errlen)
{
	int r;

	if (!out) {
		set_err(err, errlen, "no output");
		return -EINVAL;
	}
	*out = nullptr;
	vmgpu_kernlib *lib = new (std::nothrow) vmgpu_kernlib;
	if (!lib)
		return -ENOMEM;
	lib->name = name && *name ? name : "kernels";
	r = parse(lib, data, bytes, err, errlen);
	if (r) {
		delete lib;
		return r;
	}
	*out = lib;
	return 0;
}

int vmgpu_kernlib_read_file(const char *path, struct vmgpu_kernlib **out,
			    char *err, size_t errlen)
{
	std::vector<uint8_t> data;
	int r;

	if (out)
		*out = nullptr;
	if (!path || !out) {
		set_err(err, errlen, "no path or no output");
		return -EINVAL;
	}
	r = read_whole_file(path, data);
	if (r) {
		set_err(err, errlen, std::string(path) + ": " +
			(r == -EINVAL ? "not a regular file or too large" :
					strerror(-r)));
		return r;
	}
	r = vmgpu_kernlib_read(data.data(), data.size(), path, out, err,
			       errlen);
	if (r && err && errlen) {
		std::string why = err;

		set_err(err, errlen, std::string(path) + ": " + why);
	}
	return r;
}

int vmgpu_kernlib_build(struct vmgpu_compiler *cc, struct vmgpu_kernlib *lib,
			uint32_t isa_version, const char *options,
			struct vmgpu_program **out, char **log)
{
	std::string text;
	int r;

	if (out)
		*out = nullptr;
	if (log)
		*log = nullptr;
	if (!cc || !lib || !out || isa_version < VMGPU_ISA_VERSION_MIN ||
	    isa_version > VMGPU_ISA_VERSION)
		return -EINVAL;
	vmgpu_program *prog = new (std::nothrow) vmgpu_program;
	if (!prog)
		return -ENOMEM;
	r = build(cc, lib, isa_version, options, prog, text);
	if (log) {
		*log = dup_str(text);
		if (!*log && !r)
			r = -ENOMEM;
	}
	if (r) {
		delete prog;
		return r;
	}
	cc->builds++;
	*out = prog;
	return 0;
}

int vmgpu_kernlib_build_for_device(struct vmgpu_compiler *cc,
				   struct vmgpu_kernlib *lib,
				   struct vmgpu_device *dev,
				   const char *options,
				   struct vmgpu_program **out, char **log)
{
	struct vmgpu_info info;
	uint64_t isa;
	int r;

	if (out)
		*out = nullptr;
	if (log)
		*log = nullptr;
	if (!dev)
		return -EINVAL;
	r = vmgpu_device_query(dev, &info);	/* the driver's GET_PARAMs */
	if (r)
		return r;
	isa = info.isa_version;
	if (isa < VMGPU_ISA_VERSION_MIN || isa > VMGPU_ISA_VERSION) {
		if (log)
			*log = dup_str("error: the device reports ISA version " +
				       std::to_string(isa) +
				       ", which this library does not know\n");
		return -ENOEXEC;
	}
	return vmgpu_kernlib_build(cc, lib, uint32_t(isa), options, out, log);
}

} // extern "C"
