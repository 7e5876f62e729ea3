package dev.parley.operator.crd;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/** SFU pods of one region, owned directly by the operator so it chooses which pod is drained and removed. */
@Group(ParleyApi.GROUP)
@Version(ParleyApi.VERSION)
@Plural("sfupools")
@ShortNames({"sfup", "sfu"})
@Categories("parley")
@AdditionalPrinterColumn(name = "Ready", jsonPath = ".status.readyReplicas", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Draining", jsonPath = ".status.drainingReplicas", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Load", jsonPath = ".status.averageLoad", type = AdditionalPrinterColumn.Type.NUMBER)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
public class SfuPool extends CustomResource<SfuPoolSpec, SfuPoolStatus> implements Namespaced {
    private static final long serialVersionUID = 1L;
}
