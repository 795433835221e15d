/** \file The rules that cannot fire on verified input, each with the reason: what a coverage
 * report (the self-check, a campaign's summary) expects to stay at zero hits. */
#pragma once

#include <map>
#include <string>

namespace uopfuzz::simplifier {

/// Rule name -> why no verified kernel can make it fire. Keep it short and proven.
const std::map<std::string, std::string>& unfireable_rules();

}  // namespace uopfuzz::simplifier
