import NookNotify
import Testing

@Suite("E2 body markup")
struct MarkupTests {
    @Test func e2_tagsAreRemovedAndEntitiesDecoded() {
        #expect(Markup.plainText("<b>All</b> files &amp; <i>folders</i>") == "All files & folders")
        #expect(Markup.plainText("<a href=\"https://x.org/?a=1&amp;b=2\">link</a> &lt;ok&gt; &#65;&#x42;") == "link <ok> AB")
        #expect(Markup.plainText("line one<br/>line two\n\nthree") == "line one line two three")
    }

    @Test func e2_aLessThanThatStartsNoTagStaysText() {
        #expect(Markup.plainText("I <3 Nook") == "I <3 Nook")
        #expect(Markup.plainText("a < b and b > c") == "a < b and b > c")
        #expect(Markup.plainText("<b unclosed") == "<b unclosed")
        #expect(Markup.plainText("&unknown; & &#0; &#xFFFFFFFF;") == "&unknown; & &#0; &#xFFFFFFFF;")
    }

    @Test func e2_markupOnlyBodyIsEmpty() {
        #expect(Markup.plainText("<b></b> <br>") == "")
    }
}
