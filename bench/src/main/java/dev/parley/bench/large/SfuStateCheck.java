package dev.parley.bench.large;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The SFUs' own view: every participant with a subscribe transport on an SFU ({@code GET /internal/v1/state}) may
 * hold at most N audio slots with a track and video slots only of cameras on its page. Counts what it checked.
 */
final class SfuStateCheck {
    /** Participants checked, the largest audio and video slot counts seen, and the violations. */
    record Result(int subscribers, int maxAudio, int maxVideo, List<String> violations) {
    }

    private SfuStateCheck() {
    }

    static Result run(String phase, Platform platform, String meeting, Map<String, Participant> byPid, int topN)
            throws Exception {
        int subscribers = 0, maxAudio = 0, maxVideo = 0;
        List<String> violations = new ArrayList<>();
        for (Platform.Sfu sfu : platform.sfus) {
            JsonNode state = Api.JSON.readTree(platform.state(sfu));
            for (JsonNode m : state.path("meetings")) {
                if (!meeting.equals(m.path("meeting_id").asText())) continue;
                for (JsonNode p : m.path("participants")) {
                    if (p.path("subscribe_transport").isNull() || p.path("subscribe_transport").isMissingNode()) continue;
                    String pid = p.path("participant_id").asText();
                    Participant who = byPid.get(pid);
                    if (who == null) continue;
                    subscribers++;
                    int audio = 0, video = 0;
                    for (JsonNode s : p.path("slots")) {
                        if ("audio".equals(s.path("kind").asText())) {
                            audio++;
                        } else {
                            video++;
                            String owner = s.path("participant_id").asText();
                            if (!who.page.contains(owner)) {
                                violations.add(phase + " " + sfu.pod() + ": participant " + who.index + " has a video slot of "
                                        + owner + ", not on its page");
                            }
                        }
                    }
                    maxAudio = Math.max(maxAudio, audio);
                    maxVideo = Math.max(maxVideo, video);
                    if (audio > topN) {
                        violations.add(phase + " " + sfu.pod() + ": participant " + who.index + " holds " + audio + " audio slots (N=" + topN + ")");
                    }
                }
            }
        }
        return new Result(subscribers, maxAudio, maxVideo, violations);
    }
}
