#include "crypto/secret_text.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <stdexcept>

namespace redrive::crypto {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
constexpr char kHex[] = "0123456789abcdef";
constexpr size_t kMaxRandomBytes = 64;

int Sextet(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}

std::string Hex(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char b : bytes) {
    out += kHex[b >> 4];
    out += kHex[b & 0xF];
  }
  return out;
}

std::string RandomBytes(size_t n) {
  unsigned char bytes[kMaxRandomBytes];
  if (n > kMaxRandomBytes) throw std::invalid_argument("at most 64 random bytes at once");
  if (RAND_bytes(bytes, static_cast<int>(n)) != 1) throw std::runtime_error("RAND_bytes failed");
  return std::string(reinterpret_cast<const char*>(bytes), n);
}

}  // namespace

std::string Base64UrlEncode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() * 4 + 2) / 3);
  unsigned bits = 0;
  int have = 0;
  for (unsigned char b : bytes) {
    bits = (bits << 8) | b;
    have += 8;
    while (have >= 6) {
      have -= 6;
      out += kAlphabet[(bits >> have) & 0x3F];
    }
  }
  if (have > 0) out += kAlphabet[(bits << (6 - have)) & 0x3F];
  return out;
}

std::optional<std::string> Base64UrlDecode(std::string_view text) {
  if (text.size() % 4 == 1) return std::nullopt;
  std::string out;
  out.reserve(text.size() * 3 / 4);
  unsigned bits = 0;
  int have = 0;
  for (char c : text) {
    const int v = Sextet(c);
    if (v < 0) return std::nullopt;
    bits = (bits << 6) | static_cast<unsigned>(v);
    have += 6;
    if (have >= 8) {
      have -= 8;
      out += static_cast<char>((bits >> have) & 0xFF);
    }
  }
  if ((bits & ((1u << have) - 1)) != 0) return std::nullopt;
  return out;
}

bool IsBase64UrlText(std::string_view text) {
  for (char c : text) {
    if (Sextet(c) < 0) return false;
  }
  return true;
}

std::string RandomBase64Url(size_t bytes) { return Base64UrlEncode(RandomBytes(bytes)); }
std::string RandomHex(size_t bytes) { return Hex(RandomBytes(bytes)); }

std::string Sha256Hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(data.data(), data.size(), digest, &size, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("SHA-256 failed");  // OpenSSL out of memory: a bug or worse
  }
  return Hex(std::string_view(reinterpret_cast<const char*>(digest), size));
}

std::string HmacSha256(std::string_view key, std::string_view message) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int mac_len = 0;
  // An empty key is legal HMAC; OpenSSL wants a non-null pointer for it.
  static const unsigned char kEmpty = 0;
  const void* key_ptr = key.empty() ? &kEmpty : static_cast<const void*>(key.data());
  if (HMAC(EVP_sha256(), key_ptr, static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(message.data()), message.size(), mac,
           &mac_len) == nullptr) {
    throw std::runtime_error("HMAC-SHA256 failed");  // only if OpenSSL is broken
  }
  return std::string(reinterpret_cast<const char*>(mac), mac_len);
}

std::string HmacSha256Hex(std::string_view key, std::string_view message) {
  return Hex(HmacSha256(key, message));
}

}  // namespace redrive::crypto
