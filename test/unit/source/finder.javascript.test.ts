import { behavesLikeSqlFinder } from './behavesLikeSqlFinder';

behavesLikeSqlFinder('javascript');
