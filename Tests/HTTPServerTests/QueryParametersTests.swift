import Testing

@testable import HTTPServer

@Suite struct QueryParametersTests {
    @Test func decodesPlusAndPercent() throws {
        let query = try #require(QueryParameters(parsing: "name=John+Smith&city=S%C3%A3o%20Paulo&x=a%2Bb"))
        #expect(query["name"] == "John Smith")
        #expect(query["city"] == "São Paulo")
        #expect(query["x"] == "a+b")
    }

    @Test func repeatedNamesKeepOrder() throws {
        let query = try #require(QueryParameters(parsing: "tag=a&tag=b&limit=5&tag=c"))
        #expect(query["tag"] == "a")
        #expect(query.values("tag") == ["a", "b", "c"])
        #expect(query.names == ["tag", "limit"])
    }

    @Test func flagsAndEmptyPieces() throws {
        let query = try #require(QueryParameters(parsing: "&flag&&empty=&k=v=w"))
        #expect(query["flag"] == "")
        #expect(query["empty"] == "")
        #expect(query["k"] == "v=w")
        #expect(query["missing"] == nil)
        #expect(query.names == ["flag", "empty", "k"])
    }

    @Test(arguments: ["a=%", "a=%2", "a=%GG", "%zz=1", "a=%FF"])
    func invalidEncodingIsRejected(query: String) {
        #expect(QueryParameters(parsing: Substring(query)) == nil)
    }
}
