// What each option of each command does, for `auspex help COMMAND` and `auspex COMMAND --help`: one line
// per option, "  --option ARG  what it does (default)". The usage line in main.cpp says which go together.
#pragma once

namespace ax::cli {

// The option lines of `command` ("" for none known).
const char* command_options(const char* command);

}  // namespace ax::cli
