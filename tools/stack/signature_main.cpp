// Links the runtime's signature check (runtime/model_signature.h: SHA-512 over the model, then Ed25519) into
// one Cortex-M image, only so that tools/stack/stack_worst_case.py can compute its worst-case stack from the
// linked code, apart from the forecast's images (whose budget it is not held to). It is never run: the
// bytes and keys come from volatile objects the compiler cannot see through.
#include <cstddef>
#include <cstdint>

#include "ports/ports.h"
#include "runtime/model_signature.h"

namespace {

const uint8_t* volatile model_bytes = nullptr;
volatile size_t model_size = 0;
const uint8_t (*volatile keys)[ax::kEd25519PublicKeyBytes] = nullptr;
volatile size_t key_count = 0;

}  // namespace

int main() {
    // The stack tool reads the kernel tables of every image it analyses; this one only links them.
    const void* volatile kernels = &ax::best_kernels();
    (void)kernels;
    const ax::Status s = ax::check_model_signature(model_bytes, model_size, ax::TrustedKeys{keys, key_count});
    return s ? 0 : 1;
}
