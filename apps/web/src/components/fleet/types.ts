/**
 * Wire types of the console's fleet API (/api/v1/fleet/*), shared with the server: re-exported type-only from
 * apps/console/src/api/fleet-types.ts through the console's web/api-types.ts (nothing of the server is bundled).
 */
export type {
  FleetCheckRequest,
  FleetCheckResult,
  FleetMatrix,
  FleetMatrixGrid,
  FleetNode,
  FleetOverview,
  FleetPair,
  FleetProtocol,
  FleetTier,
  FleetTopology,
  MatrixCell,
  MatrixNode,
  MtrHop,
  PairWindow,
  PeerRow,
  PmtuBadge,
  PmtuBadgeWord,
  TopologyNode,
  WorstPair,
} from "../../../../console/src/web/api-types.ts";
