/** \file HTML text helpers for the dashboard: every string that comes from a results file
 * passes through html_escape, every link through link_to, so a device name or a case path
 * can never break the page's markup. */
#pragma once

#include <string>
#include <string_view>

namespace uopfuzz::report {

/// Escapes &, <, >, " and ' as character references: safe in element text and in quoted
/// attribute values alike.
std::string html_escape(std::string_view text);

/// Percent-encodes a file path for an href: every byte except ASCII letters, digits,
/// "-._~" and "/" (so "#", "?", "%", spaces and non-ASCII bytes cannot end or redirect
/// the URL). The result needs no further HTML escaping.
std::string url_escape_path(std::string_view path);

/// The href for PATH (as a results file records it) seen from a page written to
/// OUTPUT_PATH: a relative PATH is taken as relative to the current directory, as the
/// CLI that wrote it saw it, and rewritten relative to OUTPUT_PATH's directory; an
/// absolute PATH stays absolute. "" for an empty PATH. Already url-escaped.
std::string link_to(const std::string& path, const std::string& output_path);

}  // namespace uopfuzz::report
