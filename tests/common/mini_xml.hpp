#pragma once
/// @file A minimal XML reader for tests: elements, attributes and text; skips the XML
/// declaration and comments. Enough to check the XDMF files heptane writes; throws
/// std::runtime_error on malformed input.
#include <cctype>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace heptane::test {

struct XmlElement {
    std::string name;
    std::map<std::string, std::string> attributes;
    std::string text;  ///< concatenated character data directly inside the element
    std::vector<XmlElement> children;

    /// Every descendant (or self) named `tag`, in document order.
    void find_all(const std::string& tag, std::vector<const XmlElement*>& out) const {
        if (name == tag) out.push_back(this);
        for (const auto& c : children) c.find_all(tag, out);
    }
};

class XmlParser {
  public:
    explicit XmlParser(std::string text) : s_(std::move(text)) {}

    XmlElement parse() {
        skip_misc();
        XmlElement root = element();
        skip_misc();
        if (i_ != s_.size()) fail("content after the root element");
        return root;
    }

  private:
    [[noreturn]] void fail(const std::string& what) const {
        throw std::runtime_error("XML: " + what + " at offset " + std::to_string(i_));
    }
    bool starts(const char* p) const {
        return s_.compare(i_, std::char_traits<char>::length(p), p) == 0;
    }
    void skip_space() {
        while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
    }
    void skip_past(const char* end) {
        const auto pos = s_.find(end, i_);
        if (pos == std::string::npos) fail(std::string("missing ") + end);
        i_ = pos + std::char_traits<char>::length(end);
    }
    /// Declarations, comments and white space between elements.
    void skip_misc() {
        for (;;) {
            skip_space();
            if (starts("<?"))
                skip_past("?>");
            else if (starts("<!--"))
                skip_past("-->");
            else
                return;
        }
    }
    std::string name() {
        const std::size_t b = i_;
        while (i_ < s_.size() &&
               (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_' ||
                s_[i_] == '-' || s_[i_] == ':' || s_[i_] == '.')) {
            ++i_;
        }
        if (b == i_) fail("expected a name");
        return s_.substr(b, i_ - b);
    }
    XmlElement element() {
        if (!starts("<")) fail("expected '<'");
        ++i_;
        XmlElement e;
        e.name = name();
        for (;;) {
            skip_space();
            if (starts("/>")) {
                i_ += 2;
                return e;
            }
            if (starts(">")) {
                ++i_;
                break;
            }
            const std::string key = name();
            skip_space();
            if (!starts("=")) fail("expected '=' after attribute " + key);
            ++i_;
            skip_space();
            const char quote = s_[i_];
            if (quote != '"' && quote != '\'') fail("expected a quoted value");
            const auto end = s_.find(quote, i_ + 1);
            if (end == std::string::npos) fail("unterminated attribute value");
            e.attributes[key] = s_.substr(i_ + 1, end - i_ - 1);
            i_ = end + 1;
        }
        for (;;) {
            if (i_ >= s_.size()) fail("unterminated element " + e.name);
            if (starts("<!--")) {
                skip_past("-->");
            } else if (starts("</")) {
                i_ += 2;
                if (name() != e.name) fail("mismatched closing tag of " + e.name);
                skip_space();
                if (!starts(">")) fail("expected '>'");
                ++i_;
                return e;
            } else if (starts("<")) {
                e.children.push_back(element());
            } else {
                e.text += s_[i_++];
            }
        }
    }

    std::string s_;
    std::size_t i_ = 0;
};

}  // namespace heptane::test
