package dev.parley.platform.ticket;

/**
 * Claims of a connect ticket: the right to negotiate one transport of one participant, at one transport
 * generation, on one SFU, for at most 30 seconds, once.
 *
 * @param mid meeting id
 * @param pid participant id
 * @param gen transport generation
 * @param sfu SFU pod name the ticket is bound to
 * @param dk  device key id the client presented
 * @param exp expiry, Unix seconds
 * @param jti unique ticket id (single use)
 */
public record ConnectTicketClaims(String mid, String pid, long gen, String sfu, String dk, long exp, String jti) {
}
