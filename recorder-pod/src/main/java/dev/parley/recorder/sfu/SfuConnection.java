package dev.parley.recorder.sfu;

import dev.parley.media.rtp.RtpPacket;
import dev.parley.recorder.media.RtpSink;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One subscribe transport (one transport generation on one SFU) and its slots. As the connection's
 * {@link ClientPeerConnection.Receiver} it routes each decrypted packet to its slot by the SFU's SSRC (a short
 * array scan, no allocation).
 */
final class SfuConnection implements ClientPeerConnection.Receiver {
    final long generation;
    final String sfuPod;
    final String offer;
    final ClientPeerConnection pc;
    final SfuSlot[] slots;
    /** Our RTCP sender SSRC (PLI). */
    final int localSsrc = ThreadLocalRandom.current().nextInt() | 1;
    /** Control thread only. */
    long lastRefreshNanos;

    SfuConnection(long generation, String sfuPod, String offer, ClientPeerConnection pc, List<SfuAnswer.SlotSsrc> answered) {
        this.generation = generation;
        this.sfuPod = sfuPod;
        this.offer = offer;
        this.pc = pc;
        this.slots = new SfuSlot[answered.size()];
        for (int i = 0; i < slots.length; i++) {
            SfuAnswer.SlotSsrc a = answered.get(i);
            slots[i] = new SfuSlot(a.mid(), a.video(), a.ssrc());
        }
    }

    /** Names slots from the controller's slot assignments (a slot keeps the first track it was given). */
    void apply(List<SubscribeBroker.Assignment> assignments) {
        for (SubscribeBroker.Assignment a : assignments) {
            for (SfuSlot s : slots) {
                if (s.mid.equals(a.mid()) && s.trackId == null && a.trackId() != null && !a.trackId().isBlank()) {
                    s.trackId = SfuSlot.recorderTrackId(a.trackId());
                }
            }
        }
    }

    boolean hasUnnamedMedia() {
        for (SfuSlot s : slots) {
            if (s.firstPacketNanos != 0 && s.trackId == null) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void onRtp(byte[] b, int len) {
        int ssrc = RtpPacket.ssrc(b, 0);
        for (SfuSlot s : slots) {
            if (s.ssrc == ssrc) {
                long now = System.nanoTime();
                if (s.firstPacketNanos == 0) {
                    s.firstPacketNanos = now;
                }
                s.lastPacketNanos = now;
                RtpSink sink = s.sink;
                if (sink != null) {
                    sink.onRtp(b, 0, len);
                }
                return;
            }
        }
    }
}
