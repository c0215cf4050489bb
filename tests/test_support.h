// Shared helpers of the doctest suites: fixture paths, tolerant comparison, the ports to test.
#pragma once
#include <string>
#include <vector>

#include "runtime/kernels.h"

namespace ax::test {

std::string fixture_path(const std::string& relative);

// Largest error of got against want, each measured as |g - w| / max(1, |w|): absolute error for values
// below 1, relative above, as "within 1e-4 absolute or relative, whichever is larger" asks.
double max_mixed_error(const std::vector<float>& got, const std::vector<float>& want);

// Checks sizes match and max_mixed_error <= tolerance; on failure the message names `what` and the
// worst element.
void check_close(const std::vector<float>& got, const std::vector<float>& want, double tolerance,
                 const std::string& what);

// Every kernel port this build and CPU can run, generic first.
std::vector<const Kernels*> available_ports();

}  // namespace ax::test
