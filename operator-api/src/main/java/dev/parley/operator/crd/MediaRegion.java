package dev.parley.operator.crd;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/** A region's data plane: stable signaling/TURN hostnames, the TURN pool and the SfuPools it groups. */
@Group(ParleyApi.GROUP)
@Version(ParleyApi.VERSION)
@Plural("mediaregions")
@ShortNames({"mr", "mregion"})
@Categories("parley")
@AdditionalPrinterColumn(name = "Ready", jsonPath = ".status.conditions[?(@.type==\"Ready\")].status", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
public class MediaRegion extends CustomResource<MediaRegionSpec, MediaRegionStatus> implements Namespaced {
    private static final long serialVersionUID = 1L;
}
