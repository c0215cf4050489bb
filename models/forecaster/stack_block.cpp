#include "models/forecaster/stack_block.h"

#include "models/forecaster/forecaster_config.h"
#include "runtime/config_reader.h"

namespace ax {

using format::ConfigKey;

namespace {

Status bad(const char* what) { return Status::error(StatusCode::bad_model, what); }

}  // namespace

Status StackBlock::read(const ConfigRecords& f, StackConfig* stack) {
    AX_RETURN_IF_ERROR(read_config_enum(f, ConfigKey::memory_mask, &memory_mask));
    uint32_t v = 0;
    format::EncoderMask encoder_mask = format::EncoderMask::none;
    if (f.config(ConfigKey::encoder_mask, &v))
        AX_RETURN_IF_ERROR(read_config_enum(f, ConfigKey::encoder_mask, &encoder_mask));
    stack->encoder_causal = encoder_mask == format::EncoderMask::causal;
    format::DecoderMask decoder_mask = format::DecoderMask::causal;
    if (f.config(ConfigKey::decoder_mask, &v))
        AX_RETURN_IF_ERROR(read_config_enum(f, ConfigKey::decoder_mask, &decoder_mask));
    if (decoder_mask != format::DecoderMask::causal && stack->decoder_layers == 0)
        return bad("decoder_mask without a decoder");
    stack->decoder_causal = decoder_mask == format::DecoderMask::causal;
    size_t residual = 0;
    AX_RETURN_IF_ERROR(read_config_optional_size(f, ConfigKey::encoder_residual, 0, 1, 0, &residual));
    encoder_residual = residual != 0;
    AX_RETURN_IF_ERROR(read_config_optional_size(f, ConfigKey::decoder_residual, 0, 1, 0, &residual));
    decoder_residual = residual != 0;
    return Status::ok();
}

void StackBlock::write(const StackConfig& stack, ConfigWriter& out) const {
    out.put_enum(ConfigKey::memory_mask, memory_mask);
    if (stack.encoder_causal) out.put_enum(ConfigKey::encoder_mask, format::EncoderMask::causal);
    if (!stack.decoder_causal) out.put_enum(ConfigKey::decoder_mask, format::DecoderMask::none);
    if (encoder_residual) out.put(ConfigKey::encoder_residual, 1u);
    if (decoder_residual) out.put(ConfigKey::decoder_residual, 1u);
}

Status StackBlock::check(const ForecasterConfig& c) const {
    if (decoder_residual && c.encoder_only())
        return bad("config \"decoder_residual\" needs a decoder; this model has none");
    return Status::ok();
}

void StackBuffers::allocate_encoder(MemoryPlan& plan, const ForecasterConfig& c, size_t encoder_rows) {
    if (c.stacks.encoder_residual)
        encoder_in = plan.alloc<float>("residual around the encoder: its input rows",
                                       uint64_t{encoder_rows} * c.stack.layer.d_model, Phase::encode, Phase::encode);
}

void StackBuffers::allocate_decoder(MemoryPlan& plan, const ForecasterConfig& c, size_t tile) {
    if (c.stacks.decoder_residual)
        decoder_in = plan.alloc<float>("residual around the decoder: a tile's input rows",
                                       uint64_t{tile} * c.stack.layer.d_model, Phase::decode, Phase::decode);
}

}  // namespace ax
