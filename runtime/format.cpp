#include "runtime/format.h"

namespace ax::format {

const char* role_name(Role role) {
    switch (role) {
        case Role::src_embed_weight: return "embedding_src.weight";
        case Role::src_embed_bias: return "embedding_src.bias";
        case Role::tgt_embed_weight: return "embedding_tgt.weight";
        case Role::tgt_embed_bias: return "embedding_tgt.bias";
        case Role::generator_weight: return "generator.weight";
        case Role::generator_bias: return "generator.bias";
        case Role::encoder_norm_weight: return "encoder.norm.weight";
        case Role::encoder_norm_bias: return "encoder.norm.bias";
        case Role::decoder_norm_weight: return "decoder.norm.weight";
        case Role::decoder_norm_bias: return "decoder.norm.bias";
        case Role::input_mean: return "normalization.mean";
        case Role::input_scale: return "normalization.scale";
        case Role::src_token_embed: return "src_token_embed.weight";
        case Role::tgt_token_embed: return "tgt_token_embed.weight";
        case Role::src_pos_embed: return "src_pos_embed.weight";
        case Role::tgt_pos_embed: return "tgt_pos_embed.weight";
        case Role::head_weight: return "head.weight";
        case Role::head_bias: return "head.bias";
        case Role::z_mean_weight: return "z_mean.weight";
        case Role::z_mean_bias: return "z_mean.bias";
        case Role::z_log_var_weight: return "z_log_var.weight";
        case Role::z_log_var_bias: return "z_log_var.bias";
        case Role::z_embed_weight: return "z_embedding.weight";
        case Role::z_embed_bias: return "z_embedding.bias";
        case Role::seq_embed_weight: return "seq_embedding.weight";
        case Role::seq_embed_bias: return "seq_embedding.bias";
        case Role::r_seq_embed_weight: return "r_seq_embedding.weight";
        case Role::r_seq_embed_bias: return "r_seq_embedding.bias";
        case Role::enc_attn_in_weight: return "encoder.layers.{}.self_attn.in_proj_weight";
        case Role::enc_attn_in_bias: return "encoder.layers.{}.self_attn.in_proj_bias";
        case Role::enc_attn_out_weight: return "encoder.layers.{}.self_attn.out_proj.weight";
        case Role::enc_attn_out_bias: return "encoder.layers.{}.self_attn.out_proj.bias";
        case Role::enc_ff1_weight: return "encoder.layers.{}.linear1.weight";
        case Role::enc_ff1_bias: return "encoder.layers.{}.linear1.bias";
        case Role::enc_ff2_weight: return "encoder.layers.{}.linear2.weight";
        case Role::enc_ff2_bias: return "encoder.layers.{}.linear2.bias";
        case Role::enc_norm1_weight: return "encoder.layers.{}.norm1.weight";
        case Role::enc_norm1_bias: return "encoder.layers.{}.norm1.bias";
        case Role::enc_norm2_weight: return "encoder.layers.{}.norm2.weight";
        case Role::enc_norm2_bias: return "encoder.layers.{}.norm2.bias";
        case Role::dec_attn_in_weight: return "decoder.layers.{}.self_attn.in_proj_weight";
        case Role::dec_attn_in_bias: return "decoder.layers.{}.self_attn.in_proj_bias";
        case Role::dec_attn_out_weight: return "decoder.layers.{}.self_attn.out_proj.weight";
        case Role::dec_attn_out_bias: return "decoder.layers.{}.self_attn.out_proj.bias";
        case Role::dec_cross_in_weight: return "decoder.layers.{}.multihead_attn.in_proj_weight";
        case Role::dec_cross_in_bias: return "decoder.layers.{}.multihead_attn.in_proj_bias";
        case Role::dec_cross_out_weight: return "decoder.layers.{}.multihead_attn.out_proj.weight";
        case Role::dec_cross_out_bias: return "decoder.layers.{}.multihead_attn.out_proj.bias";
        case Role::dec_ff1_weight: return "decoder.layers.{}.linear1.weight";
        case Role::dec_ff1_bias: return "decoder.layers.{}.linear1.bias";
        case Role::dec_ff2_weight: return "decoder.layers.{}.linear2.weight";
        case Role::dec_ff2_bias: return "decoder.layers.{}.linear2.bias";
        case Role::dec_norm1_weight: return "decoder.layers.{}.norm1.weight";
        case Role::dec_norm1_bias: return "decoder.layers.{}.norm1.bias";
        case Role::dec_norm2_weight: return "decoder.layers.{}.norm2.weight";
        case Role::dec_norm2_bias: return "decoder.layers.{}.norm2.bias";
        case Role::dec_norm3_weight: return "decoder.layers.{}.norm3.weight";
        case Role::dec_norm3_bias: return "decoder.layers.{}.norm3.bias";
    }
    return nullptr;
}

}  // namespace ax::format
