/** Wire types of the console API, from the contract (@svc/contract; zod schemas, types inferred). */
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
} from "@svc/contract";
