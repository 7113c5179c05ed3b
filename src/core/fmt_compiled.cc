// fmt's compiled part, built into the release binary and the serve module
// instead of linking libfmt.so (CMakeLists.txt, PREFLIGHT_STATIC_RUNTIME):
// libfmt.so itself needs libstdc++.so, which the static runtime leaves out,
// and fmt's header-only mode cost about 2 s of compile time per file (-O3,
// 2 cores; src/core/units.cc 1.5 -> 3.8 s), since every file then compiled
// format-inl.h. Here it is compiled once.
//
// format-inl.h defines fmt's non-template functions (FMT_FUNC is empty
// outside header-only mode); the two templates below are the ones fmt/format.h
// declares `extern template` for char, so one file must instantiate them.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {
template auto thousands_sep_impl<char>(locale_ref) -> thousands_sep_result<char>;
template auto decimal_point_impl(locale_ref) -> char;
}  // namespace detail
FMT_END_NAMESPACE
