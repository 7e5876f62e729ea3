package dev.parley.operator.model;

/** The two independently scaled media pool kinds; the name is the etcd key segment and pod component label. */
public enum PoolKind {
    SFU("sfu"), TURN("turn");

    private final String segment;

    PoolKind(String segment) {
        this.segment = segment;
    }

    public String segment() {
        return segment;
    }
}
