/** \file The rules that cannot fire on verified input, each with the reason: what a coverage
 * report (the self-check, a campaign's summary) expects to stay at zero hits. */
#pragma once

#include <map>
#include <string>

namespace uopfuzz::simplifier {

/// Rule name -> why no verified kernel can make it fire. Keep it short and proven.
const std::map<std::string, std::string>& unfireable_rules();

/// Rule name -> what it records: rules that match and remember a fact for a later rule but
/// never rewrite, so they never count a hit; the rule that acts on the record counts it.
const std::map<std::string, std::string>& recording_rules();

}  // namespace uopfuzz::simplifier
