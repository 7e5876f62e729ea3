package dev.parley.testsupport.browser;

import com.microsoft.playwright.Page;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads {@code RTCPeerConnection.getStats()} from a page. The page exposes its peer connection under a
 * JavaScript expression (e.g. {@code window.pc}); stats come back as plain maps (numbers are Doubles or
 * Integers, as Playwright deserialises them).
 */
public final class WebRtcStats {

    private WebRtcStats() {
    }

    /** Every stats report of the peer connection that {@code pcExpression} evaluates to. */
    @SuppressWarnings("unchecked") // page.evaluate returns a JSON-shaped Object
    public static List<Map<String, Object>> all(Page page, String pcExpression) {
        Object result = page.evaluate("async () => { const r = await (" + pcExpression + ").getStats();"
                + " const out = []; r.forEach(s => out.push(s)); return out; }");
        return new ArrayList<>((List<Map<String, Object>>) result);
    }

    /** Reports of one type, e.g. {@code inbound-rtp}, {@code candidate-pair}, {@code transport}. */
    public static List<Map<String, Object>> ofType(Page page, String pcExpression, String type) {
        return all(page, pcExpression).stream().filter(s -> type.equals(s.get("type"))).toList();
    }

    /** Sum of {@code framesDecoded} over the inbound video streams. */
    public static long framesDecoded(Page page, String pcExpression) {
        return sum(inbound(page, pcExpression, "video"), "framesDecoded");
    }

    /** Sum of {@code packetsReceived} over inbound streams of {@code kind} ("audio" or "video"). */
    public static long packetsReceived(Page page, String pcExpression, String kind) {
        return sum(inbound(page, pcExpression, kind), "packetsReceived");
    }

    /** Sum of {@code bytesReceived} over inbound streams of {@code kind}. */
    public static long bytesReceived(Page page, String pcExpression, String kind) {
        return sum(inbound(page, pcExpression, kind), "bytesReceived");
    }

    /** The selected candidate pair's local candidate type and protocol, e.g. {@code "host/udp"}, or null. */
    public static String selectedCandidate(Page page, String pcExpression) {
        Object result = page.evaluate("async () => { const r = await (" + pcExpression + ").getStats();"
                + " let pairId = null; r.forEach(s => { if (s.type === 'transport' && s.selectedCandidatePairId) pairId = s.selectedCandidatePairId; });"
                + " if (!pairId) r.forEach(s => { if (s.type === 'candidate-pair' && s.nominated && s.state === 'succeeded') pairId = s.id; });"
                + " if (!pairId) return null; const pair = r.get(pairId); const local = r.get(pair.localCandidateId);"
                + " return local ? local.candidateType + '/' + local.protocol : null; }");
        return (String) result;
    }

    private static List<Map<String, Object>> inbound(Page page, String pcExpression, String kind) {
        return ofType(page, pcExpression, "inbound-rtp").stream().filter(s -> kind.equals(s.get("kind"))).toList();
    }

    private static long sum(List<Map<String, Object>> reports, String field) {
        long total = 0;
        for (Map<String, Object> s : reports) {
            Object v = s.get(field);
            if (v instanceof Number n) {
                total += n.longValue();
            }
        }
        return total;
    }
}
