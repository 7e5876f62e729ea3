package dev.parley.media.ice;

import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class StunTest {
    @Test
    void bindingRequestVerifiesAndResponseCarriesXorMappedAddress() {
        byte[] key = "abcdefghijklmnopqrstuvwx".getBytes(StandardCharsets.UTF_8);
        byte[] tid = new byte[12];
        tid[0] = 7;
        byte[] b = new byte[512];
        int n = Stun.writeBindingRequest(b, 0, tid, "sfu1:peer", 12345, true, 99, true, key);
        assertThat(Stun.isStun(b, 0, n)).isTrue();
        Stun.Message m = Stun.parse(b, 0, n);
        assertThat(m).isNotNull();
        assertThat(m.type).isEqualTo(Stun.BINDING_REQUEST);
        assertThat(m.username).isEqualTo("sfu1:peer");
        assertThat(m.useCandidate).isTrue();
        assertThat(m.controlling).isTrue();
        assertThat(m.priority).isEqualTo(12345);
        assertThat(Stun.verify(b, 0, m, key)).isTrue();
        assertThat(Stun.verify(b, 0, m, "wrong".getBytes(StandardCharsets.UTF_8))).isFalse();
        b[30] ^= 1;  // corrupt username: fingerprint no longer matches
        assertThat(Stun.verify(b, 0, Stun.parse(b, 0, n), key)).isFalse();

        byte[] r = new byte[512];
        InetSocketAddress addr = new InetSocketAddress("127.0.0.1", 50000);
        int rn = Stun.writeBindingSuccess(r, 0, tid, addr, key);
        Stun.Message resp = Stun.parse(r, 0, rn);
        assertThat(resp.type).isEqualTo(Stun.BINDING_SUCCESS);
        assertThat(resp.xorMapped).isEqualTo(addr);
        assertThat(Stun.verify(r, 0, resp, key)).isTrue();
    }

    @Test
    void garbageIsNotStun() {
        assertThat(Stun.parse(new byte[]{0, 1, 0, 4, 0x21, 0x12, (byte) 0xA4, 0x42, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 0, 20)).isNull();
        assertThat(Stun.isStun(new byte[]{(byte) 0x80, 0}, 0, 2)).isFalse();
    }
}
