import Foundation
import NookTestSupport
import NookTestTraits
import Testing

/// M2 with L3: a drawing's text (`dt`) is drawn in the LED font, so what that font cannot draw
/// is said in the answer, naming the command; one it can draw answers a plain OK.
@Suite(.serialized, .ownThreads, .enabled(if: Senders.curl != nil, "needs curl"))
struct DrawingSaidTests {
    @Test func m2_l3_aDrawingsTextTheLEDFontCannotDrawIsSaidNamingTheCommand() throws {
        let service = try HTTPService(nookdConfig: "[led]\ngeometry = \"32x8\"\n", nookdDisplay: "led-mock")
        let drawn = try SaidNotDroppedTests.curl(["-d", ##"{"draw": [{"dp": [0, 0, "#FF0000"]}, {"dt": [2, 1, "✓ 5", "#FFFFFF"]}]}"##,
                                                  service.url + "/api/custom?name=temperature"])
        #expect(drawn.status == 200 && drawn.body == "OK\nthe LED font cannot draw '✓' in the draw[1] text; it shows as '?'", "\(drawn)")
        let plain = try SaidNotDroppedTests.curl(["-d", ##"{"draw": [{"dt": [2, 1, "21 C", "#FFFFFF"]}]}"##, service.url + "/api/custom?name=plain"])
        #expect(plain.status == 200 && plain.body == "OK", "\(plain)")
    }
}
