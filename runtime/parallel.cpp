#include "runtime/parallel.h"

namespace ax {

void parallel_run(const ParallelFor& p, size_t n_tasks, ParallelTask task, void* arg) {
    if (p.threaded() && n_tasks > 1) {
        p.run(p.ctx, static_cast<int>(n_tasks), task, arg);
        return;
    }
    for (size_t i = 0; i < n_tasks; ++i) task(arg, static_cast<int>(i));
}

}  // namespace ax
