// The marker functions of an insn program (tools/insn/insn_plugin.c): executing auspex_insn_begin_<NAME> starts
// the counted region NAME, auspex_insn_end ends it. Distinct bodies (a write to a volatile), so that no
// identical-code folding merges them. Included by one source file per image.
#pragma once
#include <cstdint>

volatile uint32_t auspex_insn_marker;
extern "C" {
__attribute__((noinline, used)) void auspex_insn_begin_generic() { auspex_insn_marker = 1; }
__attribute__((noinline, used)) void auspex_insn_begin_best() { auspex_insn_marker = 2; }
__attribute__((noinline, used)) void auspex_insn_end() { auspex_insn_marker = 0; }
}
