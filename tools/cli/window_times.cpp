#include "tools/cli/window_times.h"

#include <cstdio>

#include "models/forecaster/forecaster.h"
#include "tools/cli/data_csv.h"
#include "tools/common/tool_error.h"
#include "tools/host/calendar.h"
#include "tools/text/time_grid.h"

namespace ax::cli {

bool reads_times(const tools::LoadedModel& m) {
    for (const std::string& kind : tools::calendar_of(m.file))
        if (!kind.empty()) return true;
    return m.as<Forecaster>().config().known_inputs != 0;
}

void settle_window_times(tools::Table& rows, const Args& args, const std::string& option, bool by_time) {
    if (rows.times.empty()) return;
    const std::string path = args.get(option);
    const char* why_even =
        "the model reads inputs by timestamp (calendar columns or inputs known ahead), so the rows must be evenly "
        "spaced";
    const tools::TimeGrid grid = tools::time_grid(rows.times, rows.decimal_comma, rows.date_order);
    if (!grid.known) {
        if (by_time) throw tools::ToolError(path + ": " + grid.why + ": " + why_even);
        return;
    }
    const tools::GridBreak* first_gap = nullptr;
    bool off_grid = false;
    for (const tools::GridBreak& b : grid.breaks) {
        const std::string what = path + ": " + tools::describe_break(grid, rows.times, b);
        switch (b.kind) {
            case tools::GridBreak::Kind::duplicate:
                throw tools::ToolError(what +
                                       ". Remove one of them (a log kept in local time repeats an hour when "
                                       "daylight saving ends: write the timestamps with their UTC offset)");
            case tools::GridBreak::Kind::disorder:
                throw tools::ToolError(what + ". Sort the rows by time");
            case tools::GridBreak::Kind::off_grid:
                if (by_time) throw tools::ToolError(what + ": " + why_even);
                off_grid = true;
                break;
            case tools::GridBreak::Kind::gap:
                if (!first_gap) first_gap = &b;
                break;
        }
    }
    if (!first_gap) return;
    const tools::Fill fill = csv_options(args).fill;
    const std::string first = tools::describe_break(grid, rows.times, *first_gap);
    if (fill == tools::Fill::none)
        throw tools::ToolError(path + ": " + first +
                               ". The model reads the window as consecutive steps: fill the missing rows with "
                               "--fill linear or --fill previous, or give a log without the gap");
    if (off_grid)
        throw tools::ToolError(path + ": " + first +
                               ", and other rows are off the grid: --fill only inserts rows that are missing");
    const size_t inserted = tools::fill_time_gaps(rows, grid, fill);
    std::fprintf(stderr, "note: %s: inserted %zu missing row(s) (--fill %s; %s)\n", path.c_str(), inserted,
                 fill == tools::Fill::linear ? "linear" : "previous", first.c_str());
}

}  // namespace ax::cli
