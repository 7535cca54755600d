/** Wire types shared with the console server (type-only: nothing of the server is bundled). */
export type {
  ConsoleConfigView,
  CustomRole,
  ErrorBody,
  MeView,
  MintedToken,
  RoleBinding,
  TokenState,
  TokenView,
  UserView,
} from "../../../console/src/web/api-types.ts";
