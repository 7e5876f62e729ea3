package dev.parley.recorder.segment;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Ogg encapsulation of Opus (RFC 7845): OpusHead and OpusTags pages, then one Opus packet per page with the
 * granule position (48 kHz samples) taken from the RTP timestamp, so gaps in the stream stay gaps.
 */
public final class OggOpusWriter implements ContainerWriter {
    private static final int[] CRC = crcTable();

    private final OutputStream out;
    private final int channels;
    private final int serial;
    private final byte[] page = new byte[27 + 255 + 255 * 255];
    private int pageSeq;
    private boolean headersWritten;

    public OggOpusWriter(OutputStream out, int channels, int serial) {
        this.out = out;
        this.channels = channels;
        this.serial = serial;
    }

    @Override
    public String ffmpegFormat() {
        return "ogg";
    }

    @Override
    public void writeFrame(byte[] data, int off, int len, long pts, boolean keyframe) throws IOException {
        if (!headersWritten) {
            byte[] head = new byte[19];
            System.arraycopy("OpusHead".getBytes(StandardCharsets.US_ASCII), 0, head, 0, 8);
            head[8] = 1;
            head[9] = (byte) channels;
            IvfWriter.le16(head, 10, 0); // pre-skip: the stream starts mid-call, nothing to skip
            IvfWriter.le32(head, 12, 48_000);
            IvfWriter.le16(head, 16, 0);
            head[18] = 0;
            writePage(head, 0, head.length, 0, 0x02);
            byte[] vendor = "parley-recorder".getBytes(StandardCharsets.US_ASCII);
            byte[] tags = new byte[8 + 4 + vendor.length + 4];
            System.arraycopy("OpusTags".getBytes(StandardCharsets.US_ASCII), 0, tags, 0, 8);
            IvfWriter.le32(tags, 8, vendor.length);
            System.arraycopy(vendor, 0, tags, 12, vendor.length);
            writePage(tags, 0, tags.length, 0, 0);
            headersWritten = true;
        }
        if (len > 255 * 254) {
            return; // not an Opus packet (max 1275 bytes per frame x 48 frames is far below)
        }
        writePage(data, off, len, pts + samples(data, off, len), 0);
    }

    /** Samples (48 kHz) in an Opus packet, from its TOC byte (RFC 6716 3.1). */
    static int samples(byte[] d, int off, int len) {
        if (len < 1) {
            return 0;
        }
        int toc = d[off] & 0xFF;
        int config = toc >> 3;
        int frameSamples;
        if (config < 12) {
            frameSamples = new int[] {480, 960, 1920, 2880}[config & 3];
        } else if (config < 16) {
            frameSamples = (config & 1) == 0 ? 480 : 960;
        } else {
            frameSamples = new int[] {120, 240, 480, 960}[config & 3];
        }
        int code = toc & 3;
        int frames = code == 0 ? 1 : code < 3 ? 2 : (len > 1 ? d[off + 1] & 0x3F : 0);
        return frames * frameSamples;
    }

    private void writePage(byte[] data, int off, int len, long granule, int flags) throws IOException {
        int segs = len / 255 + 1;
        page[0] = 'O';
        page[1] = 'g';
        page[2] = 'g';
        page[3] = 'S';
        page[4] = 0;
        page[5] = (byte) flags;
        for (int i = 0; i < 8; i++) {
            page[6 + i] = (byte) (granule >>> (8 * i));
        }
        IvfWriter.le32(page, 14, serial);
        IvfWriter.le32(page, 18, pageSeq++);
        IvfWriter.le32(page, 22, 0);
        page[26] = (byte) segs;
        for (int i = 0; i < segs - 1; i++) {
            page[27 + i] = (byte) 255;
        }
        page[27 + segs - 1] = (byte) (len % 255);
        int hlen = 27 + segs;
        System.arraycopy(data, off, page, hlen, len);
        int crc = 0;
        for (int i = 0; i < hlen + len; i++) {
            crc = (crc << 8) ^ CRC[((crc >>> 24) ^ page[i]) & 0xFF];
        }
        IvfWriter.le32(page, 22, crc);
        out.write(page, 0, hlen + len);
    }

    @Override
    public void finish() throws IOException {
        out.close();
    }

    private static int[] crcTable() {
        int[] t = new int[256];
        for (int i = 0; i < 256; i++) {
            int r = i << 24;
            for (int k = 0; k < 8; k++) {
                r = (r & 0x80000000) != 0 ? (r << 1) ^ 0x04c11db7 : r << 1;
            }
            t[i] = r;
        }
        return t;
    }
}
