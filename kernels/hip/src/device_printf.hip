// Device printf with %d %u %x %f %s %c %ld (and %%, widths and flags, a
// string chosen at run time, a line without arguments): 21 lines from 11
// threads of 2 blocks of 72. The order of lines from different threads is not
// defined.
//
// The program checks itself: it points file descriptor 1 at a temporary file
// while the kernel runs (the runtime's printf handler writes to stdout),
// then reads the captured lines back, echoes them to the real stdout, and
// compares them, sorted, with the lines the host formats with the same
// formats and values. It also prints "expected N device lines" so a harness
// that captures stdout can compare sorted lines itself.
#include "common.h"

#include <algorithm>
#include <string>
#include <vector>
#include <unistd.h>

#define FMT1 "T%03d b=%u x=%x f=%f s=%s c=%c l=%ld %%\n"
#define FMT2 "[%-6s|%5d|%08x]\n"
#define FMT0 "no arguments here\n"

__global__ void print_some(int salt) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x % 16 == 3) {
    printf(FMT1, tid, (unsigned)blockIdx.x, tid * 0x1111 + salt, tid * 0.5 + 0.25,
           (tid & 1) ? "odd" : "even", 'A' + tid % 26, (long)tid * -1000000007L);
    printf(FMT2, tid % 3 == 0 ? "three" : "other", tid - 50, (unsigned)(tid * 2654435761u));
  }
  if (tid == 0) printf(FMT0);
}

static std::vector<std::string> expected_lines(int blocks, int threads, int salt) {
  std::vector<std::string> lines;
  char buf[256];
  for (int b = 0; b < blocks; b++)
    for (int t = 0; t < threads; t++) {
      int tid = b * threads + t;
      if (t % 16 == 3) {
        snprintf(buf, sizeof buf, FMT1, tid, (unsigned)b, tid * 0x1111 + salt, tid * 0.5 + 0.25,
                 (tid & 1) ? "odd" : "even", 'A' + tid % 26, (long)tid * -1000000007L);
        lines.push_back(buf);
        snprintf(buf, sizeof buf, FMT2, tid % 3 == 0 ? "three" : "other", tid - 50,
                 (unsigned)(tid * 2654435761u));
        lines.push_back(buf);
      }
      if (tid == 0) lines.push_back(FMT0);
    }
  return lines;
}

int main() {
  const int blocks = 2, threads = 72, salt = 7;
  std::vector<std::string> want = expected_lines(blocks, threads, salt);
  printf("expected %zu device lines\n", want.size());
  fflush(stdout);

  // Capture fd 1 while the kernel runs.
  FILE *tmp = tmpfile();
  if (!tmp) {
    perror("tmpfile");
    return 2;
  }
  int saved = dup(1);
  if (saved < 0 || dup2(fileno(tmp), 1) < 0) {
    perror("dup2");
    return 2;
  }
  print_some<<<blocks, threads>>>(salt);
  hipError_t launch_err = hipGetLastError();
  hipError_t sync_err = hipDeviceSynchronize();
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  CHECK(launch_err);
  CHECK(sync_err);

  std::vector<std::string> got;
  rewind(tmp);
  char line[512];
  while (fgets(line, sizeof line, tmp)) {
    got.push_back(line);
    fputs(line, stdout);  // echo what the device printed
  }
  fclose(tmp);

  std::sort(want.begin(), want.end());
  std::sort(got.begin(), got.end());
  EXPECT_EQ("line count", 0, got.size(), want.size());
  size_t m = std::min(got.size(), want.size());
  for (size_t i = 0; i < m; i++) {
    if (got[i] != want[i]) {
      if (g_mismatches < kMaxReported)
        printf("MISMATCH sorted line %zu:\n  got      %s  expected %s", i, got[i].c_str(),
               want[i].c_str());
      g_mismatches++;
    }
  }
  char summary[64];
  snprintf(summary, sizeof summary, "%zu device lines captured and compared", got.size());
  return finish("device_printf", summary);
}
