package dev.parley.media.codec;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class Vp8DescriptorTest {
    @Test
    void parsesFifteenBitPictureIdTl0AndKeyframe() {
        // X=1 S=1 PID=0 | I=1 L=1 T=1 | M=1 picid 0x1234 | TL0 9 | TID 2 | VP8 header P=0 (keyframe)
        byte[] b = {(byte) 0x90, (byte) 0xE0, (byte) 0x92, 0x34, 9, (byte) 0x80, 0x10, 0, 0};
        Vp8Descriptor d = new Vp8Descriptor();
        assertThat(d.parse(b, 0, b.length)).isTrue();
        assertThat(d.pictureIdBits).isEqualTo(15);
        assertThat(d.pictureId).isEqualTo(0x1234);
        assertThat(d.tl0PicIdx).isEqualTo(9);
        assertThat(d.temporalId).isEqualTo(2);
        assertThat(d.keyframe).isTrue();
        assertThat(d.length).isEqualTo(6);
        Vp8Descriptor.writePictureId(b, d, 0x7FFF);
        Vp8Descriptor.writeTl0PicIdx(b, d, 200);
        assertThat(d.parse(b, 0, b.length)).isTrue();
        assertThat(d.pictureId).isEqualTo(0x7FFF);
        assertThat(d.tl0PicIdx).isEqualTo(200);
    }

    @Test
    void temporalIdLayerSyncAndKeyIndex() {
        // X=1 S=0 | I=1 L=1 T=1 K=1 | picid 7 bit 5 | TL0 250 | TID 1, Y=1, KEYIDX 17 | payload
        byte[] b = {(byte) 0x80, (byte) 0xF0, 0x05, (byte) 250, (byte) (0x40 | 0x20 | 17), 1};
        Vp8Descriptor d = new Vp8Descriptor();
        assertThat(d.parse(b, 0, b.length)).isTrue();
        assertThat(d.temporalId).isEqualTo(1);
        assertThat(d.layerSync).isTrue();
        assertThat(d.keyIndex).isEqualTo(17);
        assertThat(d.tl0PicIdx).isEqualTo(250);
        assertThat(d.length).isEqualTo(5);
        // K without T: the byte is there, TID and Y are not meaningful
        byte[] k = {(byte) 0x80, 0x10, (byte) 0xE3, 0};
        assertThat(d.parse(k, 0, k.length)).isTrue();
        assertThat(d.temporalId).isEqualTo(-1);
        assertThat(d.layerSync).isFalse();
        assertThat(d.keyIndex).isEqualTo(3);
        assertThat(d.length).isEqualTo(3);
        // the same instance parsing a packet without the extension forgets the previous fields
        assertThat(d.parse(new byte[]{0x10, 0}, 0, 2)).isTrue();
        assertThat(d.temporalId).isEqualTo(-1);
        assertThat(d.keyIndex).isEqualTo(-1);
        assertThat(d.pictureIdBits).isZero();
        // T set but the TID byte missing
        assertThat(d.parse(new byte[]{(byte) 0x80, 0x20}, 0, 2)).isFalse();
        // offset parsing inside a larger buffer
        byte[] in = new byte[20];
        System.arraycopy(b, 0, in, 7, b.length);
        assertThat(d.parse(in, 7, b.length)).isTrue();
        assertThat(d.tl0PicIdxOffset).isEqualTo(7 + 3);
        assertThat(d.temporalId).isEqualTo(1);
    }

    @Test
    void interFrameAndTruncation() {
        byte[] b = {(byte) 0x90, (byte) 0x80, 0x05, 0x01};
        Vp8Descriptor d = new Vp8Descriptor();
        assertThat(d.parse(b, 0, b.length)).isTrue();
        assertThat(d.pictureIdBits).isEqualTo(7);
        assertThat(d.keyframe).isFalse();
        assertThat(d.parse(new byte[]{(byte) 0x80, (byte) 0x80}, 0, 2)).isFalse();
    }

    @Test
    void h264Keyframes() {
        assertThat(H264Keyframes.isKeyframe(new byte[]{0x65, 1}, 0, 2)).isTrue();
        assertThat(H264Keyframes.isKeyframe(new byte[]{0x41, 1}, 0, 2)).isFalse();
        assertThat(H264Keyframes.isKeyframe(new byte[]{0x78, 0, 2, 0x67, 1, 0, 1, 0x68}, 0, 8)).isTrue();
        assertThat(H264Keyframes.isKeyframe(new byte[]{0x7C, (byte) 0x85}, 0, 2)).isTrue();
    }
}
