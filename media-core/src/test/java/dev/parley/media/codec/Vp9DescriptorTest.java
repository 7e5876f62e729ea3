package dev.parley.media.codec;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class Vp9DescriptorTest {
    private final Vp9Descriptor d = new Vp9Descriptor();

    @Test
    void nonFlexibleKeyframeWithScalabilityStructure() {
        // I=1 P=0 L=1 F=0 B=1 E=0 V=1 Z=0 | M=1 picid 0x0102 | TID 0 U=0 SID 0 D=0 | TL0 5
        // | SS: N_S=2 (3 layers) Y=1 G=1 | 320x180 640x360 1280x720 | N_G=2: (TID0 U0 R1 P_DIFF 4) (TID1 U1 R0)
        byte[] b = {(byte) 0xAA, (byte) 0x81, 0x02, 0x00, 5, (byte) 0x58,
                0x01, 0x40, 0x00, (byte) 0xB4, 0x02, (byte) 0x80, 0x01, 0x68, 0x05, 0x00, 0x02, (byte) 0xD0,
                2, 0x04, 4, 0x30, /* payload */ 0x12, 0x34};
        assertThat(d.parse(b, 0, b.length)).isTrue();
        assertThat(d.pictureIdBits).isEqualTo(15);
        assertThat(d.pictureId).isEqualTo(0x0102);
        assertThat(d.temporalId).isZero();
        assertThat(d.spatialId).isZero();
        assertThat(d.tl0PicIdx).isEqualTo(5);
        assertThat(d.startOfFrame).isTrue();
        assertThat(d.endOfFrame).isFalse();
        assertThat(d.keyframe()).isTrue();
        assertThat(d.ssPresent).isTrue();
        assertThat(d.ssSpatialLayers).isEqualTo(3);
        assertThat(d.ssWidth).startsWith(320, 640, 1280);
        assertThat(d.ssHeight).startsWith(180, 360, 720);
        assertThat(d.ssGroupPictures).isEqualTo(2);
        assertThat(d.length).isEqualTo(b.length - 2);
        Vp9Descriptor.writePictureId(b, d, 0x7ABC);
        Vp9Descriptor.writeTl0PicIdx(b, d, 200);
        assertThat(d.parse(b, 0, b.length)).isTrue();
        assertThat(d.pictureId).isEqualTo(0x7ABC);
        assertThat(d.tl0PicIdx).isEqualTo(200);
        assertThat(d.ssWidth[2]).isEqualTo(1280);
    }

    @Test
    void upperSpatialLayerOfAKeyframeIsNoPictureStart() {
        // I=1 P=0 L=1 F=0 B=1 E=1 | picid 7-bit 9 | TID 0 U=0 SID 2 D=1 | TL0 5
        byte[] b = {(byte) 0xAC, 9, 0x05, 5, 0};
        assertThat(d.parse(b, 0, b.length)).isTrue();
        assertThat(d.pictureIdBits).isEqualTo(7);
        assertThat(d.spatialId).isEqualTo(2);
        assertThat(d.interLayerDependent).isTrue();
        assertThat(d.endOfFrame).isTrue();
        assertThat(d.startOfPicture()).isFalse();
        assertThat(d.keyframe()).isFalse();
        assertThat(d.length).isEqualTo(4);
    }

    @Test
    void flexibleModeReferencesAndTemporalSwitchPoint() {
        // I=1 P=1 L=1 F=1 B=1 E=1 V=0 Z=1 | picid 7-bit 100 | TID 2 U=1 SID 1 D=0 | P_DIFF 1 (N) P_DIFF 2 | payload
        byte[] b = {(byte) 0xFD, 100, (byte) (0x40 | 0x10 | 0x02), 0x03, 0x04, 0x55};
        assertThat(d.parse(b, 0, b.length)).isTrue();
        assertThat(d.flexible).isTrue();
        assertThat(d.temporalId).isEqualTo(2);
        assertThat(d.switchingUp).isTrue();
        assertThat(d.spatialId).isEqualTo(1);
        assertThat(d.notReferencedByUpper).isTrue();
        assertThat(d.tl0PicIdx).isEqualTo(-1);          // flexible mode has no TL0PICIDX
        assertThat(d.referenceCount).isEqualTo(2);
        assertThat(d.pDiff).startsWith(1, 2);
        assertThat(d.keyframe()).isFalse();
        assertThat(d.length).isEqualTo(5);
        // offset parsing inside a larger buffer
        byte[] in = new byte[20];
        System.arraycopy(b, 0, in, 9, b.length);
        assertThat(d.parse(in, 9, b.length)).isTrue();
        assertThat(d.pictureIdOffset).isEqualTo(10);
        assertThat(d.referenceCount).isEqualTo(2);
    }

    @Test
    void singleLayerStreamAndReuseForgetsFields() {
        assertThat(d.parse(new byte[]{(byte) 0xFD, 100, 0x52, 0x03, 0x04, 0x55}, 0, 6)).isTrue();
        // no I, no L: a plain stream's packet, B=1 P=0 (keyframe start)
        assertThat(d.parse(new byte[]{0x0C, 0x11}, 0, 2)).isTrue();
        assertThat(d.pictureIdBits).isZero();
        assertThat(d.temporalId).isEqualTo(-1);
        assertThat(d.spatialId).isEqualTo(-1);
        assertThat(d.referenceCount).isZero();
        assertThat(d.sid()).isZero();
        assertThat(d.keyframe()).isTrue();
        assertThat(d.length).isEqualTo(1);
    }

    @Test
    void rejectsTruncatedAndOverlongDescriptors() {
        assertThat(d.parse(new byte[0], 0, 0)).isFalse();
        assertThat(d.parse(new byte[]{(byte) 0x80}, 0, 1)).isFalse();                 // I without picture id
        assertThat(d.parse(new byte[]{(byte) 0x80, (byte) 0x81}, 0, 2)).isFalse();    // M without its second byte
        assertThat(d.parse(new byte[]{0x20, 0x00}, 0, 2)).isFalse();                  // L, non-flexible, no TL0PICIDX
        assertThat(d.parse(new byte[]{0x50, 0x03, 0x03, 0x03, 0x03}, 0, 5)).isFalse(); // a fourth P_DIFF
        assertThat(d.parse(new byte[]{0x50, 0x03}, 0, 2)).isFalse();                  // N set, next P_DIFF missing
        assertThat(d.parse(new byte[]{0x02, 0x50, 0, 1, 0, 1}, 0, 6)).isFalse();      // SS: 3 sizes announced, 1 half there
        assertThat(d.parse(new byte[]{0x02, 0x08, 3, 0x04}, 0, 4)).isFalse();         // SS: N_G 3, R=1 P_DIFF missing
        // the declared length bounds parsing, not the array
        byte[] b = {(byte) 0x80, (byte) 0x81, 0x02};
        assertThat(d.parse(b, 0, 2)).isFalse();
        assertThat(d.parse(b, 0, 3)).isTrue();
    }
}
