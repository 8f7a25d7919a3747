/*
 * pocl_host: runs one OpenCL C kernel on an OpenCL CPU device (PoCL) for a
 * list of launches and writes the reference file that the simulator is
 * compared with (sim-tests/tests/pocl_differential.rs).
 *
 * Usage: pocl_host SPEC OUT
 *
 * SPEC (written by gen.py) names the kernel, its source and build options,
 * and lists the cases: launch sizes, buffers with their initial contents
 * and the kernel arguments. OUT receives the same cases in canonical form
 * followed, for every buffer the kernel may write, by its contents after
 * the run ("result" sections). The format is described in README.md.
 *
 * Build: gcc -std=c11 -O1 -Wall -Wextra -Werror host.c -lOpenCL -o pocl_host
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOK 64
#define MAX_BUFS 8
#define MAX_ARGS 12
#define MAX_CASES 16

enum dir { DIR_IN, DIR_OUT, DIR_INOUT };
static const char *dir_names[] = {"in", "out", "inout"};

struct type_info {
  const char *name;
  size_t size;
};
static const struct type_info types[] = {
    {"u16", 2}, {"f16", 2}, {"u32", 4}, {"i32", 4},
    {"f32", 4}, {"u64", 8}, {"f64", 8},
};
#define NTYPES (sizeof types / sizeof types[0])

struct buffer {
  char name[MAX_TOK];
  int type;
  size_t count;
  enum dir dir;
  int is_fill;
  uint64_t fill;
  unsigned char *data; /* initial contents, count * size bytes */
};

#define MAX_STRUCT 256

struct arg {
  int buf; /* index into bufs, or -1 for a scalar, a local or a struct */
  int type; /* a types[] index, or ARG_LOCAL / ARG_STRUCT */
  uint64_t bits; /* a scalar's bits; a local argument's size in bytes */
  size_t nbytes; /* a struct's size */
  unsigned char bytes[MAX_STRUCT]; /* a struct's bytes, in memory order */
};
#define ARG_LOCAL (-2)
#define ARG_STRUCT (-3)

struct kcase {
  char label[MAX_TOK];
  unsigned dims;
  size_t global[3], local[3];
  int nbufs, nargs;
  struct buffer bufs[MAX_BUFS];
  struct arg args[MAX_ARGS];
};

static struct {
  char kernel[MAX_TOK];
  char source[4096];
  char options[1024];
  int ncases;
  struct kcase cases[MAX_CASES];
} spec;

static const char *spec_path;
static int spec_line;

static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "pocl_host: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  exit(1);
}

#define SPEC_ERR(...)                                                          \
  do {                                                                         \
    fprintf(stderr, "%s:%d: ", spec_path, spec_line);                          \
    die(__VA_ARGS__);                                                          \
  } while (0)

/* ---- tokenizer: whitespace separated, '#' starts a comment ---- */

static FILE *spec_file;
static char line_buf[8192];
static char *line_toks[MAX_TOK];
static int line_ntok, line_pos;

/* Reads the next line with at least one token; returns 0 at end of file. */
static int next_line(void) {
  while (fgets(line_buf, sizeof line_buf, spec_file)) {
    spec_line++;
    size_t len = strlen(line_buf);
    if (len == sizeof line_buf - 1 && line_buf[len - 1] != '\n')
      SPEC_ERR("line too long");
    char *hash = strchr(line_buf, '#');
    if (hash)
      *hash = '\0';
    line_ntok = 0;
    line_pos = 0;
    for (char *t = strtok(line_buf, " \t\r\n"); t; t = strtok(NULL, " \t\r\n")) {
      if (line_ntok == MAX_TOK)
        SPEC_ERR("too many tokens on a line");
      line_toks[line_ntok++] = t;
    }
    if (line_ntok > 0)
      return 1;
  }
  return 0;
}

/* The next token, possibly on a following line (for data blocks). */
static const char *next_token(void) {
  while (line_pos >= line_ntok)
    if (!next_line())
      SPEC_ERR("unexpected end of file");
  return line_toks[line_pos++];
}

static uint64_t parse_u64(const char *s, int base, const char *what) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, base);
  if (errno || *end || !*s || s[0] == '-')
    SPEC_ERR("bad %s '%s'", what, s);
  return v;
}

static int parse_type(const char *s) {
  for (size_t i = 0; i < NTYPES; i++)
    if (!strcmp(types[i].name, s))
      return (int)i;
  SPEC_ERR("unknown type '%s'", s);
  return -1;
}

static void check_width(uint64_t v, int type, const char *tok) {
  size_t bits = types[type].size * 8;
  if (bits < 64 && (v >> bits))
    SPEC_ERR("value '%s' does not fit %s", tok, types[type].name);
}

static void store(unsigned char *p, size_t size, uint64_t v) {
  for (size_t i = 0; i < size; i++)
    p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t load(const unsigned char *p, size_t size) {
  uint64_t v = 0;
  for (size_t i = 0; i < size; i++)
    v |= (uint64_t)p[i] << (8 * i);
  return v;
}

static void read_spec(void) {
  struct kcase *c = NULL;
  while (next_line()) {
    const char *kw = line_toks[0];
    int n = line_ntok;
    line_pos = line_ntok; /* the keyword line is consumed here */
    if (!strcmp(kw, "kernel") && n == 2) {
      snprintf(spec.kernel, sizeof spec.kernel, "%s", line_toks[1]);
    } else if (!strcmp(kw, "source") && n == 2) {
      snprintf(spec.source, sizeof spec.source, "%s", line_toks[1]);
    } else if (!strcmp(kw, "options")) {
      spec.options[0] = '\0';
      for (int i = 1; i < n; i++) {
        if (i > 1)
          strncat(spec.options, " ", sizeof spec.options - strlen(spec.options) - 1);
        strncat(spec.options, line_toks[i], sizeof spec.options - strlen(spec.options) - 1);
      }
    } else if (!strcmp(kw, "case") && n == 2) {
      if (spec.ncases == MAX_CASES)
        SPEC_ERR("too many cases");
      c = &spec.cases[spec.ncases++];
      memset(c, 0, sizeof *c);
      snprintf(c->label, sizeof c->label, "%s", line_toks[1]);
    } else if (!c) {
      SPEC_ERR("'%s' outside a case", kw);
    } else if ((!strcmp(kw, "global") || !strcmp(kw, "local")) && n >= 2 && n <= 4) {
      size_t *dst = kw[0] == 'g' ? c->global : c->local;
      unsigned dims = (unsigned)(n - 1);
      if (c->dims && c->dims != dims)
        SPEC_ERR("global and local sizes differ in dimensions");
      c->dims = dims;
      for (int i = 0; i < 3; i++)
        dst[i] = i < n - 1 ? (size_t)parse_u64(line_toks[i + 1], 10, "size") : 1;
    } else if (!strcmp(kw, "buffer") && (n == 6 || n == 7)) {
      if (c->nbufs == MAX_BUFS)
        SPEC_ERR("too many buffers");
      struct buffer *b = &c->bufs[c->nbufs++];
      snprintf(b->name, sizeof b->name, "%s", line_toks[1]);
      b->type = parse_type(line_toks[2]);
      b->count = (size_t)parse_u64(line_toks[3], 10, "count");
      if (b->count == 0 || b->count > (1u << 20))
        SPEC_ERR("buffer count %zu out of range", b->count);
      int d = -1;
      for (int i = 0; i < 3; i++)
        if (!strcmp(line_toks[4], dir_names[i]))
          d = i;
      if (d < 0)
        SPEC_ERR("bad direction '%s'", line_toks[4]);
      b->dir = (enum dir)d;
      size_t size = types[b->type].size;
      b->data = calloc(b->count, size);
      if (!b->data)
        die("out of memory");
      if (!strcmp(line_toks[5], "fill") && n == 7) {
        b->is_fill = 1;
        b->fill = parse_u64(line_toks[6], 16, "fill value");
        check_width(b->fill, b->type, line_toks[6]);
        for (size_t i = 0; i < b->count; i++)
          store(b->data + i * size, size, b->fill);
      } else if (!strcmp(line_toks[5], "init") && n == 6) {
        for (size_t i = 0; i < b->count; i++) {
          const char *t = next_token();
          uint64_t v = parse_u64(t, 16, "value");
          check_width(v, b->type, t);
          store(b->data + i * size, size, v);
        }
        if (line_pos != line_ntok)
          SPEC_ERR("trailing values after buffer %s", b->name);
      } else {
        SPEC_ERR("buffer %s: expected 'init' or 'fill HEX'", b->name);
      }
    } else if (!strcmp(kw, "arg") && n == 3) {
      if (c->nargs == MAX_ARGS)
        SPEC_ERR("too many arguments");
      struct arg *a = &c->args[c->nargs++];
      a->buf = -1;
      if (!strcmp(line_toks[1], "buf")) {
        for (int i = 0; i < c->nbufs; i++)
          if (!strcmp(c->bufs[i].name, line_toks[2]))
            a->buf = i;
        if (a->buf < 0)
          SPEC_ERR("no buffer named '%s'", line_toks[2]);
      } else if (!strcmp(line_toks[1], "local")) {
        /* arg local BYTES (decimal): a __local pointer argument */
        a->type = ARG_LOCAL;
        a->bits = parse_u64(line_toks[2], 10, "local size");
        if (a->bits == 0 || a->bits > 65536)
          SPEC_ERR("local size %s out of range", line_toks[2]);
      } else if (!strcmp(line_toks[1], "struct")) {
        /* arg struct HEX: a struct by value, two hex digits per byte */
        const char *h = line_toks[2];
        size_t len = strlen(h);
        if (len == 0 || len % 2 || len / 2 > MAX_STRUCT)
          SPEC_ERR("bad struct bytes '%s'", h);
        a->type = ARG_STRUCT;
        a->nbytes = len / 2;
        for (size_t j = 0; j < a->nbytes; j++) {
          char pair[3] = {h[2 * j], h[2 * j + 1], '\0'};
          a->bytes[j] = (unsigned char)parse_u64(pair, 16, "struct byte");
        }
      } else {
        a->type = parse_type(line_toks[1]);
        a->bits = parse_u64(line_toks[2], 16, "scalar");
        check_width(a->bits, a->type, line_toks[2]);
      }
    } else if (!strcmp(kw, "end") && n == 1) {
      if (!c->dims)
        SPEC_ERR("case %s has no global/local size", c->label);
      c = NULL;
    } else {
      SPEC_ERR("unexpected line starting with '%s' (%d tokens)", kw, n);
    }
  }
  if (c)
    SPEC_ERR("missing 'end' after case %s", c->label);
  if (!spec.kernel[0] || !spec.source[0] || !spec.ncases)
    SPEC_ERR("the spec needs 'kernel', 'source' and at least one case");
}

/* ---- output ---- */

static void write_values(FILE *f, const unsigned char *data, size_t count, int type) {
  size_t size = types[type].size;
  size_t per_line = 32 / size; /* 16 x u16, 8 x u32, 4 x u64 */
  int width = (int)(size * 2);
  for (size_t i = 0; i < count; i++) {
    fprintf(f, "%0*" PRIx64, width, load(data + i * size, size));
    fputc((i + 1) % per_line == 0 || i + 1 == count ? '\n' : ' ', f);
  }
}

/* ---- OpenCL ---- */

static const char *cl_call = "";
#define CL_CHECK(expr)                                                         \
  do {                                                                         \
    cl_call = #expr;                                                           \
    cl_int err_ = (expr);                                                      \
    if (err_ != CL_SUCCESS)                                                    \
      die("%s failed with OpenCL error %d (kernel %s)", cl_call, err_,         \
          spec.kernel);                                                        \
  } while (0)

static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    die("cannot open %s: %s", path, strerror(errno));
  if (fseek(f, 0, SEEK_END))
    die("cannot seek %s", path);
  long len = ftell(f);
  rewind(f);
  char *s = malloc((size_t)len + 1);
  if (!s || fread(s, 1, (size_t)len, f) != (size_t)len)
    die("cannot read %s", path);
  s[len] = '\0';
  fclose(f);
  return s;
}

int main(int argc, char **argv) {
  if (argc != 3)
    die("usage: pocl_host SPEC OUT");
  spec_path = argv[1];
  spec_file = fopen(spec_path, "r");
  if (!spec_file)
    die("cannot open %s: %s", spec_path, strerror(errno));
  read_spec();
  fclose(spec_file);

  /* The PoCL platform and its CPU device. */
  cl_uint nplat = 0;
  CL_CHECK(clGetPlatformIDs(0, NULL, &nplat));
  cl_platform_id plats[16];
  if (nplat > 16)
    nplat = 16;
  CL_CHECK(clGetPlatformIDs(nplat, plats, NULL));
  cl_platform_id plat = NULL;
  char plat_version[256] = "";
  for (cl_uint i = 0; i < nplat; i++) {
    char version[256];
    CL_CHECK(clGetPlatformInfo(plats[i], CL_PLATFORM_VERSION, sizeof version, version, NULL));
    if (strstr(version, "PoCL") || strstr(version, "pocl")) {
      plat = plats[i];
      snprintf(plat_version, sizeof plat_version, "%s", version);
      break;
    }
  }
  if (!plat)
    die("no PoCL platform found (install pocl-opencl-icd)");
  cl_device_id dev;
  CL_CHECK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_CPU, 1, &dev, NULL));
  cl_int err;
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  CL_CHECK(err);
  cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
  CL_CHECK(err);

  char *src = read_file(spec.source);
  const char *srcs[] = {src};
  cl_program prog = clCreateProgramWithSource(ctx, 1, srcs, NULL, &err);
  CL_CHECK(err);
  if (clBuildProgram(prog, 1, &dev, spec.options, NULL, NULL) != CL_SUCCESS) {
    char log[16384] = "";
    clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    die("building %s with '%s' failed:\n%s", spec.source, spec.options, log);
  }
  cl_kernel k = clCreateKernel(prog, spec.kernel, &err);
  CL_CHECK(err);

  FILE *out = fopen(argv[2], "w");
  if (!out)
    die("cannot create %s: %s", argv[2], strerror(errno));
  fprintf(out, "# Reference run of %s on PoCL's CPU device.\n", spec.source);
  fprintf(out, "# Generated by kernels/pocl/gen.py; do not edit (format: kernels/pocl/README.md).\n");
  fprintf(out, "# platform: %s\n", plat_version);
  fprintf(out, "kernel %s\nsource %s\noptions %s\n", spec.kernel, spec.source, spec.options);

  for (int ci = 0; ci < spec.ncases; ci++) {
    struct kcase *c = &spec.cases[ci];
    cl_mem mems[MAX_BUFS];
    for (int i = 0; i < c->nbufs; i++) {
      struct buffer *b = &c->bufs[i];
      mems[i] = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                               b->count * types[b->type].size, b->data, &err);
      CL_CHECK(err);
    }
    for (int i = 0; i < c->nargs; i++) {
      struct arg *a = &c->args[i];
      if (a->buf >= 0) {
        CL_CHECK(clSetKernelArg(k, (cl_uint)i, sizeof(cl_mem), &mems[a->buf]));
      } else if (a->type == ARG_LOCAL) {
        CL_CHECK(clSetKernelArg(k, (cl_uint)i, (size_t)a->bits, NULL));
      } else if (a->type == ARG_STRUCT) {
        CL_CHECK(clSetKernelArg(k, (cl_uint)i, a->nbytes, a->bytes));
      } else {
        unsigned char bytes[8];
        store(bytes, types[a->type].size, a->bits);
        CL_CHECK(clSetKernelArg(k, (cl_uint)i, types[a->type].size, bytes));
      }
    }
    CL_CHECK(clEnqueueNDRangeKernel(q, k, c->dims, NULL, c->global, c->local, 0, NULL, NULL));
    CL_CHECK(clFinish(q));

    fprintf(out, "\ncase %s\n", c->label);
    const char *kw[2] = {"global", "local"};
    for (int s = 0; s < 2; s++) {
      const size_t *v = s ? c->local : c->global;
      fprintf(out, "%s", kw[s]);
      for (unsigned d = 0; d < c->dims; d++)
        fprintf(out, " %zu", v[d]);
      fputc('\n', out);
    }
    for (int i = 0; i < c->nbufs; i++) {
      struct buffer *b = &c->bufs[i];
      fprintf(out, "buffer %s %s %zu %s ", b->name, types[b->type].name, b->count,
              dir_names[b->dir]);
      if (b->is_fill) {
        fprintf(out, "fill %0*" PRIx64 "\n", (int)(types[b->type].size * 2), b->fill);
      } else {
        fprintf(out, "init\n");
        write_values(out, b->data, b->count, b->type);
      }
    }
    for (int i = 0; i < c->nargs; i++) {
      struct arg *a = &c->args[i];
      if (a->buf >= 0) {
        fprintf(out, "arg buf %s\n", c->bufs[a->buf].name);
      } else if (a->type == ARG_LOCAL) {
        fprintf(out, "arg local %" PRIu64 "\n", a->bits);
      } else if (a->type == ARG_STRUCT) {
        fprintf(out, "arg struct ");
        for (size_t j = 0; j < a->nbytes; j++)
          fprintf(out, "%02x", a->bytes[j]);
        fputc('\n', out);
      } else {
        fprintf(out, "arg %s %0*" PRIx64 "\n", types[a->type].name,
                (int)(types[a->type].size * 2), a->bits);
      }
    }
    for (int i = 0; i < c->nbufs; i++) {
      struct buffer *b = &c->bufs[i];
      if (b->dir == DIR_IN)
        continue;
      size_t bytes = b->count * types[b->type].size;
      unsigned char *res = malloc(bytes);
      if (!res)
        die("out of memory");
      CL_CHECK(clEnqueueReadBuffer(q, mems[i], CL_TRUE, 0, bytes, res, 0, NULL, NULL));
      fprintf(out, "result %s\n", b->name);
      write_values(out, res, b->count, b->type);
      free(res);
    }
    fprintf(out, "end\n");
    for (int i = 0; i < c->nbufs; i++) {
      CL_CHECK(clReleaseMemObject(mems[i]));
      free(c->bufs[i].data);
    }
  }
  if (fclose(out))
    die("cannot write %s", argv[2]);
  clReleaseKernel(k);
  clReleaseProgram(prog);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  free(src);
  return 0;
}
