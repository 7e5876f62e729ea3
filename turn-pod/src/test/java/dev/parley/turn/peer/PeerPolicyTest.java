package dev.parley.turn.peer;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

public class PeerPolicyTest {
    /** Every spelling of a loopback, private, metadata or otherwise internal address we know of. */
    public static final String[] DENIED = {
            "127.0.0.1", "127.0.0.2", "127.255.255.254", "0.0.0.0", "0.1.2.3", "::", "::1",
            "10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.1.1", "100.64.0.1", "100.127.255.254",
            "169.254.169.254", "169.254.0.1", "fd00:ec2::254", "fc00::1", "fdff::1", "fe80::1", "fec0::1",
            "224.0.0.1", "239.255.255.250", "255.255.255.255", "240.0.0.1", "ff02::1", "ff05::2",
            "192.0.2.1", "198.51.100.7", "203.0.113.9", "2001:db8::1", "198.18.0.1", "198.19.255.255", "192.0.0.8",
            // IPv4-mapped
            "::ffff:127.0.0.1", "::ffff:10.1.2.3", "::ffff:169.254.169.254", "::ffff:0.0.0.0", "::ffff:192.168.0.1",
            // IPv4-compatible
            "::127.0.0.1", "::169.254.169.254", "::10.0.0.1", "::0.0.0.2",
            // 6to4
            "2002:7f00:1::", "2002:a9fe:a9fe::1", "2002:0a00:0001::", "2002:c0a8:0101:1::5",
            // NAT64 well-known and local-use
            "64:ff9b::7f00:1", "64:ff9b::a9fe:a9fe", "64:ff9b::a00:1", "64:ff9b:1::7f00:1", "64:ff9b:1:abcd::1",
            // Teredo, discard, ORCHID, benchmarking
            "2001::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "100::1", "2001:2::1", "2001:10::1"};

    @Test
    void deniesEverySpellingOfInternalAddresses() throws Exception {
        PeerPolicy p = PeerPolicy.fromAllowList("");
        for (String s : DENIED) {
            assertThat(p.permits(InetAddress.getByName(s).getAddress())).as(s).isFalse();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"8.8.8.8", "1.1.1.1", "151.101.1.69", "2a00:1450:4001:82a::200e", "2606:4700::1111",
            "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:0808:0808::1"})
    void permitsPublicAddressesInAnySpelling(String s) throws Exception {
        assertThat(PeerPolicy.fromAllowList("").permits(InetAddress.getByName(s).getAddress())).as(s).isTrue();
    }

    @Test
    void allowListOpensExactlyWhatItSays() throws Exception {
        PeerPolicy p = PeerPolicy.fromAllowList("127.0.0.1/32, 10.42.0.0/16");
        assertThat(p.permits(InetAddress.getByName("127.0.0.1").getAddress())).isTrue();
        assertThat(p.permits(InetAddress.getByName("::ffff:127.0.0.1").getAddress())).isTrue(); // same host
        assertThat(p.permits(InetAddress.getByName("127.0.0.2").getAddress())).isFalse();
        assertThat(p.permits(InetAddress.getByName("::ffff:127.0.0.2").getAddress())).isFalse();
        assertThat(p.permits(InetAddress.getByName("10.42.7.7").getAddress())).isTrue();
        // translator spellings never reach an allowed internal host
        assertThat(p.permits(InetAddress.getByName("64:ff9b::a2a:707").getAddress())).isFalse(); // NAT64 of 10.42.7.7
        assertThat(p.permits(InetAddress.getByName("::127.0.0.1").getAddress())).isFalse();
        assertThat(p.permits(InetAddress.getByName("2002:7f00:1::").getAddress())).isFalse();
        assertThat(p.permits(InetAddress.getByName("10.43.0.1").getAddress())).isFalse();
        assertThat(p.permits(InetAddress.getByName("169.254.169.254").getAddress())).isFalse();
        assertThat(p.permits(InetAddress.getByName("::1").getAddress())).isFalse();
        assertThat(p.permits(new byte[5])).isFalse();
    }

    @Test
    void cidrParsing() {
        assertThat(Cidr.parse("10.1.2.3/8").toString()).isEqualTo("10.0.0.0/8");
        assertThat(Cidr.parse("fd00:ec2::254").toString()).isEqualTo("fd00:ec2:0:0:0:0:0:254/128");
        assertThatThrownBy(() -> Cidr.parse("10.0.0.0/33")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Cidr.parse("example.com")).isInstanceOf(IllegalArgumentException.class);
        assertThat(Cidr.parse("172.16.0.0/12").contains(new byte[] {(byte) 172, 31, 0, 1})).isTrue();
        assertThat(Cidr.parse("172.16.0.0/12").contains(new byte[] {(byte) 172, 32, 0, 1})).isFalse();
    }
}
