import NookInput
import Testing

@Suite("I2 IIO values as the kernel prints them")
struct IIOValueTests {
    /// What iio_format_value prints for each value type, and the exact value meant.
    @Test(arguments: [
        ("300", Int64(300_000_000_000)),                 // IIO_VAL_INT
        ("-12", -12_000_000_000),
        ("64.000000000", 64_000_000_000),                // IIO_VAL_FRACTIONAL: a VCNL4040's 1024 / 16
        ("1024.000000000", 1_024_000_000_000),
        ("4095.937500000", 4_095_937_500_000),
        ("0.062500", 62_500_000),                        // IIO_VAL_INT_PLUS_MICRO
        ("-0.500000", -500_000_000),                     // negative below one
        ("-1.250000", -1_250_000_000),
        ("0.000000001", 1),                              // IIO_VAL_INT_PLUS_NANO
        ("2147483647.999999999", 2_147_483_647_999_999_999),
        ("9223372036", 9_223_372_036_000_000_000),       // IIO_VAL_INT_64 still fits
    ])
    func i2_parsesEveryFormTheIIOCorePrints(text: String, nanos: Int64) {
        #expect(IIOValue(parsing: text)?.nanos == nanos)
    }

    @Test(arguments: ["", "-", "+1", " 1", "1 2", "1.", ".5", "1.2.3", "1e3", "0x10", "nan", "inf", "1.0000000001", "12a",
                      "9223372037", "-9223372036854775808", "１２"])
    func i2_refusesWhatTheKernelNeverPrints(text: String) {
        #expect(IIOValue(parsing: text) == nil)
    }

    @Test func i2_comparesExactlyWithAWholeThreshold() throws {
        #expect(try #require(IIOValue(parsing: "63.999999999")) < IIOValue(64))
        #expect(try #require(IIOValue(parsing: "64.000000000")) >= IIOValue(64))
        #expect(try #require(IIOValue(parsing: "-0.000001")) < IIOValue(0))
    }

    @Test func i2_describesTheShortestExactDecimal() {
        #expect(IIOValue(parsing: "64.000000000")?.description == "64")
        #expect(IIOValue(parsing: "64.062500000")?.description == "64.0625")
        #expect(IIOValue(parsing: "-0.500000")?.description == "-0.5")
        #expect(IIOValue(parsing: "0.000000001")?.description == "0.000000001")
        #expect(IIOValue(parsing: "-0")?.description == "0")
    }
}
