// Messages of the index area (HTTP client, downloads, index pages, configuration): key,
// English, Chinese (nullptr = not translated yet). Every {url} is already redacted.
#include "catalog_index.hpp"

namespace envfix::messages {
namespace {
// A table of sentences, one entry a line or two, as translators read it: laid out by hand.
// clang-format off
const CatalogEntry entries[] = {
    // index pages
    {"index.content_type", "{url} is not a package index page: the server sent {content_type}",
     "{url} 不是软件包索引页面：服务器返回的是 {content_type}"},
    {"index.html_no_dist_links", "{url} is not a package index page: none of its links is a wheel or source archive",
     "{url} 不是软件包索引页面：其中没有任何指向 wheel 或源码包的链接"},
    {"index.html_not_index", "{url} is not a package index page: it has no file links and does not say it is an index",
     "{url} 不是软件包索引页面：没有文件链接，也没有标明自己是索引"},
    {"index.api_version", "{url} uses index API version {version}; envfix reads version 1.x",
     "{url} 使用索引 API 版本 {version}；envfix 只能读取 1.x 版本"},
    {"index.json_invalid", "{url} is not a valid JSON index page: the JSON cannot be parsed",
     "{url} 不是有效的 JSON 索引页面：无法解析其中的 JSON"},
    {"index.json_field", "{url} is not a valid PEP 691 index page: field {field} is missing or has the wrong type",
     "{url} 不是有效的 PEP 691 索引页面：字段 {field} 缺失或类型错误"},
    {"index.project_not_found", "no project {project} on the index: {url} answered HTTP {status}",
     "索引中没有项目 {project}：{url} 返回 HTTP {status}"},
    {"index.mirror_failed", "{url} failed ({reason}); trying the next index",
     "{url} 访问失败（{reason}）；改用下一个索引"},
    {"index.no_index", "no index is configured to look up {project}", "没有配置可用于查找 {project} 的索引"},
    {"index.no_metadata", "the index offers no metadata file (PEP 658) for {url}",
     "索引没有为 {url} 提供元数据文件（PEP 658）"},
    {"index.metadata_hash", "the metadata file {url} does not match the index's hash: expected sha256 {expected}, got {actual}",
     "元数据文件 {url} 与索引给出的哈希不符：应为 sha256 {expected}，实际为 {actual}"},
    {"index.page_read", "read {url} ({format}, {files} files)", "已读取 {url}（{format}，{files} 个文件）"},
    // HTTP
    {"http.tls", "TLS verification failed for {url}: {reason} (use --cert or SSL_CERT_FILE for a private CA)",
     "{url} 的 TLS 证书验证失败：{reason}（私有 CA 请用 --cert 或 SSL_CERT_FILE 指定）"},
    {"http.truncated", "the connection to {url} closed before the whole body arrived: {reason}",
     "与 {url} 的连接在内容传完之前就断开了：{reason}"},
    {"http.timeout", "{url} sent nothing for {seconds} s; giving up", "{url} 已 {seconds} 秒没有返回数据；放弃"},
    {"http.connect", "cannot connect to {url}: {reason}", "无法连接 {url}：{reason}"},
    {"http.resolve", "cannot resolve the host of {url}: {reason}", "无法解析 {url} 的主机名：{reason}"},
    {"http.connection_lost", "the connection to {url} was lost: {reason}", "与 {url} 的连接中断：{reason}"},
    {"http.redirects", "{url} redirects more than {max} times", "{url} 重定向超过 {max} 次"},
    {"http.bad_url", "cannot fetch {url}: {reason}", "无法获取 {url}：{reason}"},
    {"http.interrupted", "interrupted while fetching {url}", "获取 {url} 时被中断"},
    {"http.failed", "fetching {url} failed: {reason}", "获取 {url} 失败：{reason}"},
    {"http.no_libcurl",
     "cannot fetch {url}: envfix downloads through libcurl, which is not installed here ({reason}); install it: "
     "`apt install libcurl4` (Debian, Ubuntu) or `dnf install libcurl` (Fedora)",
     "无法获取 {url}：envfix 通过 libcurl 下载，而本机没有安装它（{reason}）；请安装：`apt install libcurl4`（Debian、Ubuntu）"
     "或 `dnf install libcurl`（Fedora）"},
    {"http.status", "{url} answered HTTP {status}", "{url} 返回 HTTP {status}"},
    {"http.too_large", "{url} is larger than {limit}; refusing it as an index page", "{url} 超过 {limit}；不作为索引页面读取"},
    {"http.not_cached", "offline, and {url} is not in the cache", "处于离线模式，而缓存中没有 {url}"},
    {"http.from_cache", "{url} from the cache (offline)", "{url} 取自缓存（离线）"},
    {"http.fresh", "{url} from the cache, fresh for {seconds} s more", "{url} 取自缓存（{seconds} 秒内仍有效）"},
    {"http.not_modified", "{url} unchanged since the cached copy", "{url} 与缓存副本相同，未变化"},
    {"http.waiting", "no answer from {host} ({reason}); asking again in {seconds} s (attempt {attempt} of {attempts})",
     "{host} 没有响应（{reason}）；{seconds} 秒后再试（第 {attempt} 次，共 {attempts} 次）"},
    {"http.unreachable_remembered",
     "cannot fetch {url}: {host} did not answer within the last ten minutes ({reason}), so envfix does not wait for it again "
     "for {minutes} min (--refresh asks now). Where this machine cannot reach it, use a mirror: --index-url URL, or "
     "index.url in envfix's configuration or PIP_INDEX_URL (docs/config.md)",
     "无法获取 {url}：{host} 在最近十分钟内没有响应（{reason}），因此 envfix 在 {minutes} 分钟内不再等待它（加 --refresh 可立即重试）。"
     "如果本机无法访问它，请使用镜像：--index-url URL，或在 envfix 配置中设置 index.url，或设置 PIP_INDEX_URL（见 docs/config.md）"},
    {"http.retry", "{url}: {reason}; retrying (attempt {attempt} of {attempts})",
     "{url}：{reason}；正在重试（第 {attempt} 次，共 {attempts} 次）"},
    {"http.retry_status", "{url} answered HTTP {status}; retrying (attempt {attempt} of {attempts})",
     "{url} 返回 HTTP {status}；正在重试（第 {attempt} 次，共 {attempts} 次）"},
    {"http.cache_write_failed", "cannot cache {url}: {reason}", "无法缓存 {url}：{reason}"},
    // downloads
    {"download.task", "{name}", "{name}"},
    {"download.debug.sealed", "{name}: checked at {at} ms after the downloads began ({hash} ms hashing, {flush} ms flushing to disk)",
     "{name}：下载开始后第 {at} 毫秒校验完成（哈希 {hash} 毫秒，写入磁盘 {flush} 毫秒）"},
    {"download.debug.synced", "{files} downloaded files flushed to disk together in {ms} ms",
     "{files} 个下载的文件一并写入磁盘，用时 {ms} 毫秒"},
    {"download.hash_mismatch", "{url} does not match the index's hash: expected sha256 {expected}, got {actual}",
     "{url} 与索引给出的哈希不符：应为 sha256 {expected}，实际为 {actual}"},
    {"download.too_large", "{url} sent more than {limit} without its size announced; stopped and removed what it sent",
     "{url} 在未声明大小的情况下发送了超过 {limit} 的数据；已停止并删除收到的内容"},
    {"download.size_mismatch", "{url} has the wrong size: expected {expected} bytes, got {actual}",
     "{url} 大小不对：应为 {expected} 字节，实际为 {actual} 字节"},
    {"download.cannot_write", "cannot write {path} (downloading {url})", "无法写入 {path}（正在下载 {url}）"},
    // configuration
    {"config.syntax", "{path}:{line}: not valid YAML: {reason}", "{path}:{line}：不是有效的 YAML：{reason}"},
    {"config.unknown_key", "{path}:{line}: unknown setting {key} (known here: {known})",
     "{path}:{line}：未知设置 {key}（此处可用：{known}）"},
    {"config.want_string", "{path}:{line}: {key} must be a single value", "{path}:{line}：{key} 必须是单个值"},
    {"config.want_list", "{path}:{line}: {key} must be a list of values", "{path}:{line}：{key} 必须是值的列表"},
    {"config.want_bool", "{path}:{line}: {key} must be true or false", "{path}:{line}：{key} 必须是 true 或 false"},
    {"config.want_int", "{path}:{line}: {key} must be a whole number from {min} to {max}",
     "{path}:{line}：{key} 必须是 {min} 到 {max} 之间的整数"},
    {"config.want_map", "{path}:{line}: {key} must be a section of settings (key: value lines)",
     "{path}:{line}：{key} 必须是一组设置（key: value 形式）"},
    {"config.not_url", "{path}:{line}: {key} is not an http(s) URL: {value}", "{path}:{line}：{key} 不是 http(s) 地址：{value}"},
    {"config.version_missing", "{path}:{line}: the file has no version; add \"version: 1\" at the top",
     "{path}:{line}：文件缺少版本号；请在开头加上“version: 1”"},
    {"config.version_newer", "{path}:{line}: version {version} is newer than this envfix understands ({supported}); update envfix",
     "{path}:{line}：版本 {version} 比当前 envfix 支持的版本（{supported}）新；请升级 envfix"},
    {"config.unreadable", "cannot read the configuration file {path}", "无法读取配置文件 {path}"},
    {"config.env_not_url", "{name} is not an http(s) URL: {value}", "{name} 不是 http(s) 地址：{value}"},
    {"config.option_not_url", "{option} is not an http(s) URL: {value}", "{option} 不是 http(s) 地址：{value}"},
    // envfix config show
    {"config.show.file", "configuration file: {path}", "配置文件：{path}"},
    {"config.show.file_missing", "configuration file: {path} (absent; defaults apply)", "配置文件：{path}（不存在；使用默认值）"},
    {"config.show.setting", "setting", "设置"},
    {"config.show.value", "value", "值"},
    {"config.show.source", "from", "来源"},
    {"config.show.none", "(none)", "（无）"},
    {"config.show.default", "default", "默认值"},
    {"config.show.config_file", "config file {origin}", "配置文件 {origin}"},
    {"config.show.environment", "environment {origin}", "环境变量 {origin}"},
    {"config.show.command_line", "command line {origin}", "命令行 {origin}"},
};
// clang-format on
}  // namespace
const Catalog kIndex{entries};
}  // namespace envfix::messages
