package dev.parley.recorder.segment;

import java.io.IOException;
import java.io.OutputStream;

/** IVF (the VP8 reference container): 32-byte header, then per frame a 12-byte header. Time base 1/90000. */
public final class IvfWriter implements ContainerWriter {
    private final OutputStream out;
    private final byte[] hdr = new byte[32];
    private boolean headerWritten;
    private final int width;
    private final int height;

    public IvfWriter(OutputStream out, int width, int height) {
        this.out = out;
        this.width = width;
        this.height = height;
    }

    @Override
    public String ffmpegFormat() {
        return "ivf";
    }

    @Override
    public void writeFrame(byte[] data, int off, int len, long pts, boolean keyframe) throws IOException {
        if (!headerWritten) {
            hdr[0] = 'D';
            hdr[1] = 'K';
            hdr[2] = 'I';
            hdr[3] = 'F';
            le16(hdr, 4, 0);
            le16(hdr, 6, 32);
            hdr[8] = 'V';
            hdr[9] = 'P';
            hdr[10] = '8';
            hdr[11] = '0';
            le16(hdr, 12, width);
            le16(hdr, 14, height);
            le32(hdr, 16, 90_000); // time base denominator
            le32(hdr, 20, 1); // numerator
            le32(hdr, 24, 0);
            le32(hdr, 28, 0);
            out.write(hdr, 0, 32);
            headerWritten = true;
        }
        le32(hdr, 0, len);
        le32(hdr, 4, (int) pts);
        le32(hdr, 8, (int) (pts >>> 32));
        out.write(hdr, 0, 12);
        out.write(data, off, len);
    }

    @Override
    public void finish() throws IOException {
        out.close();
    }

    static void le16(byte[] b, int o, int v) {
        b[o] = (byte) v;
        b[o + 1] = (byte) (v >>> 8);
    }

    static void le32(byte[] b, int o, int v) {
        b[o] = (byte) v;
        b[o + 1] = (byte) (v >>> 8);
        b[o + 2] = (byte) (v >>> 16);
        b[o + 3] = (byte) (v >>> 24);
    }
}
