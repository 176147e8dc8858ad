// The lake service client: connection, endpoint methods, query results.

export { LakeClient, ClientError, commitHeader } from './client';
export type {
  Branch,
  CommitMessage,
  CommitResult,
  CreatePoolRequest,
  Head,
  IndexRuleInfo,
  IndexRuleRequest,
  LakeEvent,
  LoadOptions,
  Pool,
  QueryOptions,
  AuthIdentity,
  AuthMethod,
  SortKey,
} from './client';
export { Connection, DEFAULT_LAKE, MediaType, urlPath } from './connection';
export type {
  BodyWriter,
  ConnectionOptions,
  RequestOptions,
  Response,
  TokenRefresher,
} from './connection';
export { Auth0Client, Auth0Error, StoredTokenRefresher } from './auth0';
export type { Auth0Details, DeviceCode } from './auth0';
export { CredentialStore, goTime, ZERO_TIME } from './credentials';
export type { Tokens } from './credentials';
export { RequestError, ResponseError } from './errors';
export { QueryError, QueryReader, concatSource, formatProgress, parseErrorText } from './query';
export { valueToJS } from '../formats/json';
export type { QueryProgress, SourceInfo } from './query';
