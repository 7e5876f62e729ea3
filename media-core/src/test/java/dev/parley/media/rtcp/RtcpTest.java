package dev.parley.media.rtcp;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RtcpTest {
    @Test
    void compoundOfSrSdesNackPliFirRembByeParses() {
        byte[] b = new byte[512];
        int p = 0;
        p += Rtcp.writeSenderReport(b, p, 1, 0x1122334455667788L, 9000, 10, 1000);
        p += Rtcp.writeSdesCname(b, p, 1, "abc".getBytes());
        p += Rtcp.writeNack(b, p, 1, 2, new int[]{100, 101, 105, 130}, 4);
        p += Rtcp.writePli(b, p, 1, 2);
        p += Rtcp.writeFir(b, p, 1, 2, 7);
        p += Rtcp.writeRemb(b, p, 1, 2_500_000, new int[]{2, 3}, 2);
        p += Rtcp.writeReceiverReport(b, p, 1, 2, 25, 3, 70000, 12, 0, 0);
        p += Rtcp.writeBye(b, p, 1);
        assertThat(Rtcp.validate(b, 0, p)).isEqualTo(8);

        int o = 0;
        assertThat(Rtcp.type(b, o)).isEqualTo(Rtcp.SR);
        assertThat(Rtcp.srNtp(b, o)).isEqualTo(0x1122334455667788L);
        o = Rtcp.next(b, o, p);
        assertThat(Rtcp.type(b, o)).isEqualTo(Rtcp.SDES);
        o = Rtcp.next(b, o, p);
        assertThat(Rtcp.type(b, o)).isEqualTo(Rtcp.RTPFB);
        assertThat(Rtcp.count(b, o)).isEqualTo(Rtcp.FMT_NACK);
        assertThat(Rtcp.mediaSsrc(b, o)).isEqualTo(2);
        assertThat(Rtcp.nackEntries(b, o)).isEqualTo(2);
        assertThat(Rtcp.nackPid(b, o, 0)).isEqualTo(100);
        assertThat(Rtcp.nackBlp(b, o, 0)).isEqualTo(0b10001);
        assertThat(Rtcp.nackPid(b, o, 1)).isEqualTo(130);
        o = Rtcp.next(b, o, p);
        assertThat(Rtcp.count(b, o)).isEqualTo(Rtcp.FMT_PLI);
        o = Rtcp.next(b, o, p);
        assertThat(Rtcp.count(b, o)).isEqualTo(Rtcp.FMT_FIR);
        o = Rtcp.next(b, o, p);
        assertThat(Rtcp.isRemb(b, o)).isTrue();
        assertThat(Rtcp.rembBitrate(b, o)).isBetween(2_490_000L, 2_500_000L);
        o = Rtcp.next(b, o, p);
        assertThat(Rtcp.type(b, o)).isEqualTo(Rtcp.RR);
        o = Rtcp.next(b, o, p);
        assertThat(Rtcp.type(b, o)).isEqualTo(Rtcp.BYE);
        assertThat(Rtcp.next(b, o, p)).isEqualTo(-1);
    }

    @Test
    void malformedCompoundIsRejected() {
        byte[] b = new byte[40];
        int n = Rtcp.writePli(b, 0, 1, 2);
        b[3] = 50;
        assertThat(Rtcp.validate(b, 0, n)).isEqualTo(-1);
        assertThat(Rtcp.validate(b, 0, 3)).isEqualTo(-1);
    }
}
