#include "runtime/format.h"

namespace ax::format {

const char* role_name(Role role) {
    switch (role) {
#define AX_ROLE_CASE(name, number, text) \
    case Role::name:                     \
        return text;
        AX_ROLES(AX_ROLE_CASE)
#undef AX_ROLE_CASE
    }
    return nullptr;
}

}  // namespace ax::format
