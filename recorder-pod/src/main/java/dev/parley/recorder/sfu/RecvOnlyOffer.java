package dev.parley.recorder.sfu;

/**
 * Our SDP offer for the subscribe connection: {@code n} Opus and {@code n} VP8 recvonly slots, BUNDLEd, rtcp-mux.
 * VP8 and Opus are what the segmenter writes into WebM; PLI is the only feedback we send.
 */
final class RecvOnlyOffer {
    static final int OPUS_PT = 111;
    static final int VP8_PT = 96;

    private RecvOnlyOffer() {
    }

    static String build(String transportLines, int n) {
        StringBuilder sb = new StringBuilder("v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=parley-recorder\r\nt=0 0\r\n"
                + "a=group:BUNDLE");
        for (int i = 0; i < 2 * n; i++) {
            sb.append(' ').append(i);
        }
        sb.append("\r\n");
        for (int i = 0; i < n; i++) {
            sb.append("m=audio 9 UDP/TLS/RTP/SAVPF ").append(OPUS_PT).append("\r\nc=IN IP4 0.0.0.0\r\n")
                    .append(transportLines).append("a=mid:").append(2 * i).append("\r\na=recvonly\r\n")
                    .append("a=rtpmap:").append(OPUS_PT).append(" opus/48000/2\r\n");
            sb.append("m=video 9 UDP/TLS/RTP/SAVPF ").append(VP8_PT).append("\r\nc=IN IP4 0.0.0.0\r\n")
                    .append(transportLines).append("a=mid:").append(2 * i + 1).append("\r\na=recvonly\r\n")
                    .append("a=rtpmap:").append(VP8_PT).append(" VP8/90000\r\n")
                    .append("a=rtcp-fb:").append(VP8_PT).append(" nack pli\r\n");
        }
        return sb.toString();
    }
}
