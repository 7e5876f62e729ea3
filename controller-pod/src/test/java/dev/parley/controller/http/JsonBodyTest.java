package dev.parley.controller.http;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.control.Cursor;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JsonBodyTest {
    private static String code(Runnable r) {
        try {
            r.run();
        } catch (ApiException e) {
            return e.code();
        }
        return null;
    }

    @Test
    void sameRequestHashesTheSameWhateverTheKeyOrder() {
        ObjectNode a = JsonBody.object("{\"title\":\"x\",\"waiting_room_enabled\":true,\"nested\":{\"b\":1,\"a\":2}}");
        ObjectNode b = JsonBody.object("{\"nested\":{\"a\":2,\"b\":1},\"waiting_room_enabled\":true,\"title\":\"x\"}");
        ObjectNode c = JsonBody.object("{\"title\":\"y\",\"waiting_room_enabled\":true,\"nested\":{\"b\":1,\"a\":2}}");
        assertThat(JsonBody.hash(a)).isEqualTo(JsonBody.hash(b)).isNotEqualTo(JsonBody.hash(c));
    }

    /**
     * The hash is written straight from the tree now; it must stay byte-for-byte the hash of the earlier
     * canonical form (tree → maps → sorted JSON), or idempotency records stored before would stop matching.
     * Answers are written by our pooled mapper instead of {@code toString()}: the text must not change.
     */
    @Test
    void hashAndAnswerTextAreWhatTheyAlwaysWere() throws Exception {
        java.util.Random rnd = new java.util.Random(42);
        String[] fixed = {"{}", "{\"a\":[]}", "{\"z\":{\"y\":{\"x\":[1,{\"b\":null,\"a\":true}]}},\"a\":-0.0}",
                "{\"big\":123456789012345678901234567890,\"l\":9007199254740993,\"d\":1.0E-7,\"e\":1e300}",
                "{\"s\":\"\\u0000\\n\\\"\\\\ é \\ud83d\\ude00 </script>\",\"B\":1,\"a\":2,\"\\u00e9\":3,\"_\":4}"};
        java.util.List<ObjectNode> trees = new java.util.ArrayList<>();
        for (String f : fixed) {
            // parsed without JsonBody.object, which refuses the U+0000 of the last one (unstorableTextIsRefused):
            // the hash of any tree must stay what it was
            trees.add((ObjectNode) JsonBody.JSON.readTree(f));
        }
        for (int i = 0; i < 2000; i++) {
            trees.add((ObjectNode) JsonBody.object(JsonBody.JSON.writeValueAsString(randomObject(rnd, 0))));
        }
        java.security.MessageDigest md = java.security.MessageDigest.getInstance("SHA-256");
        for (ObjectNode t : trees) {
            String old = java.util.HexFormat.of().formatHex(md.digest(JsonBody.canonicalBytes(t)));
            assertThat(JsonBody.hash(t)).as(t.toString()).isEqualTo(old);
            // answers are written through the pooled factory now: the same text as JsonNode.toString()
            assertThat(JsonBody.write(t)).isEqualTo(t.toString());
        }
    }

    private static Object randomObject(java.util.Random rnd, int depth) {
        java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
        int n = rnd.nextInt(depth == 0 ? 8 : 4);
        for (int i = 0; i < n; i++) {
            m.put(randomText(rnd), randomValue(rnd, depth + 1));
        }
        return m;
    }

    private static Object randomValue(java.util.Random rnd, int depth) {
        switch (rnd.nextInt(depth > 3 ? 7 : 9)) {
            case 0: return rnd.nextInt();
            case 1: return rnd.nextLong();
            case 2: return rnd.nextDouble() * Math.pow(10, rnd.nextInt(40) - 20);
            case 3: return randomText(rnd);
            case 4: return rnd.nextBoolean();
            case 5: return null;
            case 6: return new java.math.BigInteger(100, rnd);
            case 7: return randomObject(rnd, depth);
            default: {
                java.util.List<Object> l = new java.util.ArrayList<>();
                for (int i = rnd.nextInt(4); i > 0; i--) {
                    l.add(randomValue(rnd, depth + 1));
                }
                return l;
            }
        }
    }

    private static String randomText(java.util.Random rnd) {
        String alphabet = "abcABC_-09 é\u00e9\u4e2d\"\\\n\t\u0001";
        StringBuilder sb = new StringBuilder();
        for (int i = rnd.nextInt(6); i >= 0; i--) {
            sb.append(alphabet.charAt(rnd.nextInt(alphabet.length())));
        }
        return sb.toString();
    }

    @Test
    void malformedBodiesHaveStableCodes() {
        assertThat(code(() -> JsonBody.object(null))).isEqualTo("missing_body");
        assertThat(code(() -> JsonBody.object("{"))).isEqualTo("malformed_json");
        assertThat(code(() -> JsonBody.object("{} {}"))).isEqualTo("malformed_json");
        assertThat(code(() -> JsonBody.object("{\"a\":1,\"a\":2}"))).isEqualTo("malformed_json");
        assertThat(code(() -> JsonBody.object("\"text\""))).isEqualTo("invalid_body");
        assertThat(code(() -> JsonBody.object("[" .repeat(100) + "]".repeat(100)))).isIn("malformed_json", "invalid_body");
        ObjectNode o = JsonBody.object("{\"n\":1.5,\"s\":3,\"b\":\"true\",\"u\":\"nope\"}");
        assertThat(code(() -> JsonBody.nonNegativeLong(o, "n", true))).isEqualTo("invalid_field");
        assertThat(code(() -> JsonBody.text(o, "s", true, 10))).isEqualTo("invalid_field");
        assertThat(code(() -> JsonBody.bool(o, "b", true))).isEqualTo("invalid_field");
        assertThat(code(() -> JsonBody.uuid(o, "u", true))).isEqualTo("invalid_field");
        assertThat(code(() -> JsonBody.text(o, "missing", true, 10))).isEqualTo("missing_field");
    }

    @Test
    void unstorableTextIsRefusedWithItsPath() {
        String[][] cases = {
                {"{\"title\":\"a\\u0000b\"}", "title"},
                {"{\"capabilities\":{\"video_codecs\":[\"VP8\",\"\\u0000\"]}}", "capabilities.video_codecs[1]"},
                {"{\"capabilities\":{\"e2e\\u0000\":true}}", "capabilities"},
                {"{\"\\u0000\":1}", "body"},
                {"{\"a\":[[{\"b\":\"\\ud800\"}]]}", "a[0][0].b"},
                {"{\"s\":\"\\udc00\\ud800\"}", "s"},
                {"{\"s\":\"x\\ud83d\"}", "s"},
        };
        for (String[] c : cases) {
            ApiException e = org.assertj.core.api.Assertions.catchThrowableOfType(ApiException.class, () -> JsonBody.object(c[0]));
            assertThat(e).as(c[0]).isNotNull();
            assertThat(e.code()).as(c[0]).isEqualTo("invalid_field");
            assertThat(e.extra().get("field")).as(c[0]).isEqualTo(c[1]);
        }
        // paired surrogates, other control characters and non-ASCII text are ordinary text
        ObjectNode ok = JsonBody.object("{\"s\":\"\\ud83d\\ude00 \\u0001 \\u00e9 \u4e2d\",\"\\ud83d\\ude00\":[\"\\t\"]}");
        assertThat(ok.get("s").textValue()).isEqualTo("\ud83d\ude00 \u0001 \u00e9 \u4e2d");
    }

    @Test
    void idempotencyKeysAreBounded() {
        assertThat(code(() -> JsonBody.idempotencyKey(null))).isEqualTo("missing_idempotency_key");
        assertThat(code(() -> JsonBody.idempotencyKey("a b"))).isEqualTo("invalid_idempotency_key");
        assertThat(code(() -> JsonBody.idempotencyKey("x".repeat(201)))).isEqualTo("invalid_idempotency_key");
        assertThat(JsonBody.idempotencyKey("create-meeting-7f23")).isEqualTo("create-meeting-7f23");
    }

    @Test
    void cursorsParseStrictly() {
        assertThat(Cursor.parse("12.1842")).isEqualTo(new Cursor(12, 1842));
        for (String bad : new String[]{null, "", "12", ".1", "1.", "a.b", "-1.2", "1.-2", "1.2.3", "9".repeat(50) + ".1"}) {
            assertThat(Cursor.parse(bad)).as(String.valueOf(bad)).isNull();
        }
    }

    /** Untrusted request bodies: any input gives a parsed object or an ApiException, never anything else. */
    @FuzzTest(maxDuration = "10s")
    void bodyParsingNeverFailsOtherwise(byte[] data) {
        String s = new String(data, java.nio.charset.StandardCharsets.UTF_8);
        try {
            ObjectNode o = JsonBody.object(s);
            JsonBody.hash(o);
            JsonBody.text(o, "title", false, 200);
            JsonBody.nonNegativeLong(o, "expected_transport_generation", false);
            JsonBody.uuid(o, "participant_id", false);
        } catch (ApiException expected) {
            assertThat(expected.status()).isEqualTo(400);
        }
        Cursor.parse(s);
    }

    @Test
    void apiExceptionCarriesExtras() {
        ApiException e = ApiException.conflict("version_conflict", "x").with("current_version", 5L);
        assertThat(e.extra()).containsEntry("current_version", 5L);
        assertThatThrownBy(() -> {
            throw e;
        }).isInstanceOf(ApiException.class);
    }
}
