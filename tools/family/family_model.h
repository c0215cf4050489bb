// The open model of any family, one variant alternative per family: what a host tool holds after opening a
// .axm file. A new family adds its model class here and its row to tools/families/families.cpp.
#pragma once
#include <variant>

#include "models/classifier/classifier.h"
#include "models/forecaster/forecaster.h"
#include "models/seq2seq/seq2seq.h"
#include "models/tvae/tvae.h"

namespace ax::tools {

using FamilyModel = std::variant<Forecaster, Seq2Seq, Classifier, Tvae>;

}  // namespace ax::tools
