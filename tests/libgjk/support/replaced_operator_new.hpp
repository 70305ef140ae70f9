// The global operator new and delete of a test binary, on malloc and free, asking a hook before
// every allocation. Include it in exactly one source file of the binary, which defines
//   bool test_allocation_allowed();  // false: this allocation fails (std::bad_alloc, or nullptr
//                                    // from the nothrow forms)
// The nothrow forms are replaced too (std::stable_sort's buffer uses them): a sanitizer's own
// nothrow new, paired with the free() below, is reported as a mismatch.
#pragma once

#include <cstdlib>
#include <new>

bool test_allocation_allowed();

// GCC at -O1 (the sanitizer builds) inlines these replacements into gtest's `new TestClass` and
// then calls the pairing of the replaced operator new with free() mismatched; they are a
// matching malloc/free pair by construction.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void* operator new(std::size_t size) {
  if (!test_allocation_allowed()) throw std::bad_alloc();
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) {
  return operator new(size);
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  if (!test_allocation_allowed()) return nullptr;
  return std::malloc(size == 0 ? 1 : size);
}
void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept {
  return operator new(size, tag);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
