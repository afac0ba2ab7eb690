import Foundation
import Testing
import DropcutDaemon

/// The names of claim folders: the holder's job id, and the fences it passed.
@Suite struct ClaimNameTests {
    @Test func namesParseAndPrintBack() {
        let plain = ClaimName("20261123T114124Z-8c80351dd074")
        #expect(plain == ClaimName(job: "20261123T114124Z-8c80351dd074", fences: 0))
        #expect(plain?.isCommitting == false)
        let fenced = ClaimName("20261123T114124Z-8c80351dd074.committing-2")
        #expect(fenced == ClaimName(job: "20261123T114124Z-8c80351dd074", fences: 2))
        #expect(fenced?.isCommitting == true)
        #expect(plain?.fenced.fenced == fenced)
        #expect(fenced?.description == "20261123T114124Z-8c80351dd074.committing-2")
        #expect(ClaimName("a-job")?.description == "a-job")
    }

    /// What the protocol never makes is nobody's claim (never taken over).
    @Test func otherNamesAreNotClaims() {
        for name in [".lease", ".hidden", "", "a.b", "x.committing-", "x.committing-0", "x.committing-99999999",
                     "x.committing-1a", ".committing-1", "x.committing-１", "x.committing--1", "a/b"] {
            #expect(ClaimName(name) == nil, "\(name)")
        }
    }
}
