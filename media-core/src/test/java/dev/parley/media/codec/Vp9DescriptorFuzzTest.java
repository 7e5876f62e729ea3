package dev.parley.media.codec;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Jazzer: any bytes at any offset either fail to parse or give a descriptor whose fields and offsets lie inside
 * the given range, and rewriting picture id / TL0PICIDX in place changes nothing else and parses back the same.
 * In the default build it runs its seeds (resources/.../Vp9DescriptorFuzzTestInputs) in regression mode.
 */
class Vp9DescriptorFuzzTest {
    private final Vp9Descriptor d = new Vp9Descriptor();

    @FuzzTest(maxDuration = "10s")
    void parse(FuzzedDataProvider data) {
        int off = data.consumeInt(0, 16);
        int pid = data.consumeInt(0, 0x7FFF), tl0 = data.consumeInt(0, 255);
        byte[] payload = data.consumeRemainingAsBytes();
        byte[] b = new byte[off + payload.length + 4];
        System.arraycopy(payload, 0, b, off, payload.length);
        if (!d.parse(b, off, payload.length)) return;
        assertThat(d.length).isBetween(1, payload.length);
        assertThat(d.temporalId).isBetween(-1, 7);
        assertThat(d.spatialId).isBetween(-1, 7);
        assertThat(d.pictureIdBits).isIn(0, 7, 15);
        assertThat(d.referenceCount).isBetween(0, 3);
        if (!d.flexible || !d.interPicturePredicted) assertThat(d.referenceCount).isZero();
        if (d.flexible) assertThat(d.tl0PicIdx).isEqualTo(-1);
        if (d.ssPresent) assertThat(d.ssSpatialLayers).isBetween(1, Vp9Descriptor.MAX_SPATIAL);
        if (d.temporalId < 0) assertThat(d.switchingUp).isFalse();
        int pidBytes = d.pictureIdBits == 15 ? 2 : d.pictureIdBits == 7 ? 1 : 0;
        if (pidBytes > 0) assertThat(d.pictureIdOffset + pidBytes - 1).isBetween(off + 1, off + d.length - 1);
        if (d.tl0PicIdx >= 0) assertThat(d.tl0PicIdxOffset).isBetween(off + 1, off + d.length - 1);
        int len = d.length, tid = d.temporalId, sid = d.spatialId, refs = d.referenceCount, bits = d.pictureIdBits;
        boolean key = d.keyframe(), ss = d.ssPresent;
        byte[] before = b.clone();
        Vp9Descriptor.writePictureId(b, d, pid);
        Vp9Descriptor.writeTl0PicIdx(b, d, tl0);
        for (int i = 0; i < b.length; i++) {
            boolean rewritten = (pidBytes > 0 && i >= d.pictureIdOffset && i < d.pictureIdOffset + pidBytes)
                    || (d.tl0PicIdxOffset >= 0 && i == d.tl0PicIdxOffset);
            if (!rewritten) assertThat(b[i]).isEqualTo(before[i]);
        }
        assertThat(d.parse(b, off, payload.length)).isTrue();
        assertThat(d.length).isEqualTo(len);
        assertThat(d.temporalId).isEqualTo(tid);
        assertThat(d.spatialId).isEqualTo(sid);
        assertThat(d.referenceCount).isEqualTo(refs);
        assertThat(d.keyframe()).isEqualTo(key);
        assertThat(d.ssPresent).isEqualTo(ss);
        if (bits > 0) assertThat(d.pictureId).isEqualTo(bits == 15 ? pid : pid & 0x7F);
        if (d.tl0PicIdx >= 0) assertThat(d.tl0PicIdx).isEqualTo(tl0);
    }
}
