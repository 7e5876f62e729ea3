package dev.parley.turn.peer;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import dev.parley.turn.peer.PeerPolicy.Protocol;

import java.net.InetAddress;
import java.util.List;

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

    private static final Protocol UDP = Protocol.UDP;
    private static final Protocol TCP = Protocol.TCP;

    private static byte[] ip(String s) throws Exception {
        return InetAddress.getByName(s).getAddress();
    }

    @Test
    void deniesEverySpellingOfInternalAddresses() throws Exception {
        PeerPolicy p = PeerPolicy.fromAllowList("");
        for (String s : DENIED) {
            for (int port : new int[] {0, 80, 2379, 3478, 5432}) {
                assertThat(p.permits(ip(s), port, UDP)).as("%s:%d udp", s, port).isFalse();
                assertThat(p.permits(ip(s), port, TCP)).as("%s:%d tcp", s, port).isFalse();
            }
            assertThat(p.permitsAddress(ip(s), UDP, new byte[4])).as(s).isFalse();
        }
    }

    /** Deny by default: the relay exists to reach SFUs, so a public address is no peer unless a rule names it. */
    @ParameterizedTest
    @ValueSource(strings = {"8.8.8.8", "1.1.1.1", "151.101.1.69", "2a00:1450:4001:82a::200e", "2606:4700::1111",
            "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:0808:0808::1"})
    void publicAddressesAreDeniedByDefaultInAnySpelling(String s) throws Exception {
        PeerPolicy p = PeerPolicy.fromAllowList("");
        assertThat(p.permits(ip(s), 3478, UDP)).as(s).isFalse();
        assertThat(p.permits(ip(s), 443, TCP)).as(s).isFalse();
    }

    @Test
    void allowListRulesOpenExactlyTheirAddressesAndPorts() throws Exception {
        PeerPolicy p = PeerPolicy.fromAllowList("127.0.0.1:5000, 10.42.0.0/16:40000-40100, [::1]:6000, 8.8.8.8:3478");
        assertThat(p.ruleCount()).isEqualTo(4);
        assertThat(p.permits(ip("127.0.0.1"), 5000, UDP)).isTrue();
        assertThat(p.permits(ip("127.0.0.1"), 5000, TCP)).isTrue(); // rules apply to both protocols
        assertThat(p.permits(ip("::ffff:127.0.0.1"), 5000, UDP)).isTrue(); // same host
        assertThat(p.permits(ip("127.0.0.1"), 5001, UDP)).isFalse();
        assertThat(p.permits(ip("127.0.0.1"), 5432, TCP)).isFalse();
        assertThat(p.permits(ip("127.0.0.2"), 5000, UDP)).isFalse();
        assertThat(p.permits(ip("::ffff:127.0.0.2"), 5000, UDP)).isFalse();
        assertThat(p.permits(ip("10.42.7.7"), 40000, UDP)).isTrue();
        assertThat(p.permits(ip("10.42.7.7"), 40100, TCP)).isTrue();
        assertThat(p.permits(ip("10.42.7.7"), 39999, UDP)).isFalse();
        assertThat(p.permits(ip("10.42.7.7"), 40101, UDP)).isFalse();
        assertThat(p.permits(ip("10.43.0.1"), 40000, UDP)).isFalse();
        assertThat(p.permits(ip("::1"), 6000, UDP)).isTrue();
        assertThat(p.permits(ip("::1"), 6001, UDP)).isFalse();
        assertThat(p.permits(ip("8.8.8.8"), 3478, UDP)).isTrue();
        assertThat(p.permits(ip("::ffff:8.8.8.8"), 3478, UDP)).isTrue();
        // a translator spelling is another host (the translator): an IPv4 rule does not open it
        assertThat(p.permits(ip("64:ff9b::808:808"), 3478, UDP)).isFalse();
        // translator spellings never reach an allowed internal host
        assertThat(p.permits(ip("64:ff9b::a2a:707"), 40000, UDP)).isFalse(); // NAT64 of 10.42.7.7
        assertThat(p.permits(ip("::127.0.0.1"), 5000, UDP)).isFalse();
        assertThat(p.permits(ip("2002:7f00:1::"), 5000, UDP)).isFalse();
        assertThat(p.permits(ip("169.254.169.254"), 80, UDP)).isFalse();
        assertThat(p.permits(new byte[5], 5000, UDP)).isFalse();
        // address-only (permissions of TCP allocations): some rule covers the address
        assertThat(p.permitsAddress(ip("10.42.0.9"), TCP, new byte[4])).isTrue();
        assertThat(p.permitsAddress(ip("10.43.0.9"), TCP, new byte[4])).isFalse();
    }

    @Test
    void theNeverListBeatsBroadRules() throws Exception {
        PeerPolicy p = PeerPolicy.fromAllowList("0.0.0.0/0:80, [::/0]:80");
        assertThat(p.permits(ip("8.8.8.8"), 80, TCP)).isTrue();
        assertThat(p.permits(ip("2606:4700::1111"), 80, TCP)).isTrue();
        assertThat(p.permits(ip("64:ff9b::808:808"), 80, TCP)).isTrue(); // NAT64 of a public address, opened by [::/0]
        for (String s : new String[] {"169.254.169.254", "0.0.0.0", "0.1.2.3", "224.0.0.1", "255.255.255.255",
                "240.0.0.1", "::", "fe80::1", "ff02::1", "fd00:ec2::254", "64:ff9b:1::7f00:1", "::ffff:169.254.169.254",
                "::127.0.0.1", "::169.254.169.254", "2002:7f00:1::", "2002:a9fe:a9fe::1", "64:ff9b::7f00:1",
                "64:ff9b::a9fe:a9fe"}) {
            assertThat(p.permits(ip(s), 80, TCP)).as(s).isFalse();
            assertThat(p.permitsAddress(ip(s), TCP, new byte[4])).as(s).isFalse();
        }
    }

    @Test
    void registeredSfuMediaPortsArePermittedPerProtocolAndFollowTheRegistry() throws Exception {
        PeerPolicy p = PeerPolicy.fromAllowList("");
        p.registered(List.of(new SfuEndpoint("sfu-a", "10.1.2.3", 3478, 3479),
                new SfuEndpoint("sfu-b", "::ffff:10.1.2.4", 4000, 0),
                new SfuEndpoint("sfu-c", "fd00::5", 5000, 5001),
                new SfuEndpoint("bad-name", "sfu.example.com", 3478, 3479),
                new SfuEndpoint("bad-any", "0.0.0.0", 3478, 3479),
                new SfuEndpoint("bad-metadata", "169.254.169.254", 80, 80),
                new SfuEndpoint("bad-nat64", "64:ff9b::a01:205", 3478, 3479),
                new SfuEndpoint("bad-null", null, 3478, 3479),
                new SfuEndpoint("bad-ports", "10.1.2.6", -1, 70000)));
        assertThat(p.registeredCount()).isEqualTo(5);
        assertThat(p.permits(ip("10.1.2.3"), 3478, UDP)).isTrue();
        assertThat(p.permits(ip("10.1.2.3"), 3479, TCP)).isTrue();
        assertThat(p.permits(ip("10.1.2.3"), 3479, UDP)).as("ICE-TCP port over UDP").isFalse();
        assertThat(p.permits(ip("10.1.2.3"), 3478, TCP)).as("UDP port over TCP").isFalse();
        assertThat(p.permits(ip("10.1.2.3"), 5432, TCP)).isFalse();
        assertThat(p.permits(ip("10.1.2.3"), 2379, TCP)).isFalse();
        assertThat(p.permits(ip("::ffff:10.1.2.3"), 3478, UDP)).isTrue();
        assertThat(p.permits(ip("64:ff9b::a01:203"), 3478, UDP)).as("NAT64 spelling").isFalse();
        assertThat(p.permits(ip("10.1.2.4"), 4000, UDP)).isTrue();
        assertThat(p.permits(ip("10.1.2.4"), 4000, TCP)).isFalse();
        assertThat(p.permits(ip("fd00::5"), 5000, UDP)).isTrue();
        assertThat(p.permits(ip("fd00::5"), 5001, TCP)).isTrue();
        assertThat(p.permits(ip("fd00::5"), 5001, UDP)).isFalse();
        assertThat(p.permits(ip("0.0.0.0"), 3478, UDP)).isFalse();
        assertThat(p.permits(ip("127.0.0.1"), 3478, UDP)).isFalse();
        assertThat(p.permits(ip("10.1.2.6"), 0, UDP)).isFalse();
        assertThat(p.permitsV4(0x0A010203, 3478, UDP)).isTrue();
        assertThat(p.permitsAddress(ip("10.1.2.3"), TCP, new byte[4])).isTrue();
        assertThat(p.permitsAddress(ip("10.1.2.4"), TCP, new byte[4])).isFalse(); // it has no TCP port
        assertThat(p.permitsAddress(ip("10.1.2.9"), UDP, new byte[4])).isFalse();

        // sfu-b leaves, sfu-a moves its UDP port
        p.registered(List.of(new SfuEndpoint("sfu-a", "10.1.2.3", 3480, 3479)));
        assertThat(p.permits(ip("10.1.2.4"), 4000, UDP)).isFalse();
        assertThat(p.permits(ip("10.1.2.3"), 3478, UDP)).isFalse();
        assertThat(p.permits(ip("10.1.2.3"), 3480, UDP)).isTrue();
        assertThat(p.permits(ip("fd00::5"), 5000, UDP)).isFalse();
        p.registered(List.of());
        assertThat(p.permits(ip("10.1.2.3"), 3480, UDP)).isFalse();
        assertThat(p.registeredCount()).isZero();
    }

    @Test
    void bareCidrsOpenNothingAndScopeTheRegistry() throws Exception {
        PeerPolicy p = PeerPolicy.fromAllowList("10.42.0.0/16, 127.0.0.1/32");
        assertThat(p.ruleCount()).isZero();
        assertThat(p.permits(ip("10.42.1.1"), 3478, UDP)).isFalse();
        assertThat(p.permits(ip("127.0.0.1"), 5432, TCP)).isFalse();
        p.registered(List.of(new SfuEndpoint("in", "10.42.1.1", 3478, 3478),
                new SfuEndpoint("out", "10.43.1.1", 3478, 3478)));
        assertThat(p.permits(ip("10.42.1.1"), 3478, UDP)).isTrue();
        assertThat(p.permits(ip("10.42.1.1"), 3478, TCP)).isTrue();
        assertThat(p.permits(ip("10.42.1.1"), 3479, UDP)).isFalse();
        assertThat(p.permits(ip("10.43.1.1"), 3478, UDP)).as("outside the SFU scope").isFalse();
    }

    @Test
    void allowListParsing() {
        assertThat(PeerRule.parse("10.1.2.3/8:5-6").toString()).isEqualTo("10.0.0.0/8:5-6");
        assertThat(PeerRule.parse(" [::1]:3478 ").toString()).isEqualTo("[0:0:0:0:0:0:0:1/128]:3478");
        assertThat(PeerRule.parse("[fd00::/8]:0-65535").portMax()).isEqualTo(65535);
        for (String bad : new String[] {"127.0.0.1:", "127.0.0.1:70000", "127.0.0.1:5-4", "127.0.0.1:-1",
                "127.0.0.1:x", "[::1]", "[::1]80", "[::1]:", "example.com:80", "10.0.0.0/33:80", "[::1/129]:80",
                "1.2.3.4:80:90"}) {
            assertThatThrownBy(() -> PeerPolicy.fromAllowList("127.0.0.1:1," + bad)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PARLEY_TURN_ALLOWED_PEERS");
        }
    }

    @Test
    void cidrParsing() {
        assertThat(Cidr.parse("10.1.2.3/8").toString()).isEqualTo("10.0.0.0/8");
        assertThat(Cidr.parse("fd00:ec2::254").toString()).isEqualTo("fd00:ec2:0:0:0:0:0:254/128");
        assertThatThrownBy(() -> Cidr.parse("10.0.0.0/33")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Cidr.parse("example.com")).isInstanceOf(IllegalArgumentException.class);
        assertThat(Cidr.parse("172.16.0.0/12").contains(new byte[] {(byte) 172, 31, 0, 1})).isTrue();
        assertThat(Cidr.parse("172.16.0.0/12").contains(new byte[] {(byte) 172, 32, 0, 1})).isFalse();
        assertThat(Cidr.parse("172.16.0.0/12").containsV4(0xAC1F0001)).isTrue();
        assertThat(Cidr.parse("172.16.0.0/12").containsV4(0xAC200001)).isFalse();
        assertThat(Cidr.parse("0.0.0.0/0").containsV4(0xFFFFFFFF)).isTrue();
        assertThat(Cidr.parse("127.0.0.1").containsV4(0x7F000001)).isTrue();
        assertThat(Cidr.parse("127.0.0.1").containsV4(0x7F000002)).isFalse();
        assertThat(Cidr.parse("::1").containsV4(0x7F000001)).isFalse();
    }
}
