/** `/connector-plugins`: the connector classes, their config definitions, and validation. */
import type { Herder } from "../runtime/herder.ts";
import { sameConnectorClass } from "../runtime/herder/connector_validation.ts";
import { ConnectRestError } from "../runtime/herder/connect_rest_error.ts";
import { staticDefs } from "../config/catalog.ts";
import { configKeyInfo } from "../config/config_infos.ts";
import { VERSION } from "../version.ts";
import type { Router } from "./router.ts";
import { json, readJson, stringMap } from "./responses.ts";
import { frameworkPlugins } from "./framework_plugins.ts";

export function pluginRoutes(router: Router, herder: Herder): void {
  router.add("GET", "/connector-plugins", (_r, _p, url) => {
    const connectors = herder.plugins.map((p) => ({ class: p.className, type: p.kind, version: VERSION }));
    if (url.searchParams.get("connectorsOnly") === "false") {
      return json([...connectors, ...frameworkPlugins()]);
    }
    return json(connectors);
  });

  router.add("GET", "/connector-plugins/:plugin/config", (_r, p) => {
    const plugin = herder.plugins.find((x) => sameConnectorClass(p.plugin, x.className));
    if (!plugin) {
      throw new ConnectRestError(
        404,
        `Failed to find any class that implements Connector and which name matches ${p.plugin}`,
      );
    }
    const orders = new Map<string, number>();
    return json(
      staticDefs(plugin.kind).map((def) => {
        const order = (orders.get(def.group) ?? 0) + 1;
        orders.set(def.group, order);
        return configKeyInfo(def, order);
      }),
    );
  });

  router.add("PUT", "/connector-plugins/:plugin/config/validate", async (req, p) => {
    const config = stringMap(await readJson(req), "config");
    return json(herder.validate(p.plugin, config));
  });
}
