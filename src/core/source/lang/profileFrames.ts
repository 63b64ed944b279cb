/**
 * How each language's functions appear in a CPU profiler's frames (pprof, perf, py-spy, rbspy,
 * V8's .cpuprofile, PHP and Perl samplers), as data: how a frame's name is qualified and mangled,
 * and which frames are the runtime, the garbage collector, idling or the MySQL driver. The
 * attribution in core/profile/ reads only this table; it never asks which language it is in.
 */
import type { Language } from '../../model';

export interface ProfileFrameRules {
  /**
   * Rewrites applied in order to a frame's name before it is split: package paths, receiver
   * parentheses, hashes and generic arguments a compiler or profiler adds
   * (`github.com/x/app.(*H).getItem` → `app.H.getItem`, `app::get_item::h0123…` → `app::get_item`).
   */
  clean: readonly (readonly [RegExp, string])[];
  /** What separates the qualifiers of a name (`App#get_item`, `app.get_item`, `Foo::bar`). */
  separator: RegExp;
  /** Frames of the language's runtime and garbage collector (name or file). */
  runtime?: RegExp;
  /** Frames of the MySQL / MariaDB drivers and their database layers (name or file). */
  driver?: RegExp;
  /** Frames that are the process waiting, not using the CPU: left out of every figure. */
  idle?: RegExp;
}

const JS_RULES: ProfileFrameRules = {
  clean: [[/^(?:async |bound |get |set |new )+/, ''], [/\.prototype\./g, '.'], [/^Object\.<anonymous>$/, '']],
  separator: /\./,
  runtime: /^\((?:garbage collector|program|root)\)$|^node:internal\/|^(?:internal\/)/,
  driver: /(?:^|\/)node_modules\/(?:mysql2|mysql|mariadb|knex|sequelize|kysely|drizzle-orm)\//,
  idle: /^\(idle\)$/,
};

export const PROFILE_FRAMES: Record<Language, ProfileFrameRules> = {
  go: {
    clean: [[/^.*\//, ''], [/\(\*?([A-Za-z0-9_]+)(?:\[[^\]]*\])?\)/g, '$1'], [/\[\.\.\.\]/g, '']],
    separator: /\./,
    runtime: /^runtime[./]|^gcBgMarkWorker|^(?:\/usr\/lib\/go|\/usr\/local\/go)[^/]*\/src\/runtime\//,
    driver: /^github\.com\/go-sql-driver\/mysql[./]|^database\/sql[./]|^github\.com\/jmoiron\/sqlx[./]|\/go-sql-driver\/mysql@[^/]+\//,
  },
  ruby: {
    clean: [[/^block (?:\(\d+ levels\) )?in /, ''], [/^rescue in /, ''], [/^ensure in /, '']],
    separator: /#|::|\./,
    runtime: /^\((?:garbage collection|marking|sweeping)\)$|^\[GC\]$|^<internal:gc>/,
    driver: /^Mysql2::|^Trilogy(?:#|::|\.)|\/gems\/(?:mysql2|trilogy|sequel|activerecord)-[^/]+\//,
  },
  python: {
    clean: [[/^<lambda>$/, '']],
    separator: /\./,
    runtime: /^<gc>$|^\(gc\)$/,
    driver: /(?:^|\/)(?:pymysql|MySQLdb|mysql\/connector|aiomysql|asyncmy|sqlalchemy)\/|^(?:pymysql|MySQLdb|aiomysql)\./,
    idle: /^\(idle\)$/,
  },
  php: {
    clean: [[/\(\)$/, ''], [/^\{closure\}$/, '']],
    separator: /::|->|\\/,
    runtime: /^gc_collect_cycles$|^<gc>$/,
    driver: /^(?:PDO|PDOStatement|mysqli|mysqli_stmt)(?:::|->)|^mysqli_/,
  },
  javascript: JS_RULES,
  typescript: JS_RULES,
  perl: {
    clean: [[/^main::/, ''], [/::__ANON__$/, '']],
    separator: /::/,
    driver: /^DBI(?:::|$)|^DBD::(?:mysql|MariaDB)|\/DBD\/(?:mysql|MariaDB)\.pm|\/DBI\.pm/,
  },
  rust: {
    clean: [[/::h[0-9a-f]{16}$/, ''], [/::\{\{closure\}\}/g, ''], [/::\{closure#\d+\}/g, ''], [/<([^<>]*)>/g, '$1']],
    separator: /::/,
    runtime: /^tokio::runtime::|^std::rt::|^__rust_(?:alloc|dealloc)/,
    driver: /^(?:sqlx|sqlx_core|sqlx_mysql|mysql_async|mysql|mysql_common|diesel)::/,
  },
};
